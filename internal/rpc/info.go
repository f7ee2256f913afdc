package rpc

// ActiveCommand is a call being run, as getrpcinfo reports it.
type ActiveCommand struct {
	// Method is the method name.
	Method string `json:"method"`
	// Duration is how long it has run, in microseconds.
	Duration int64 `json:"duration"`
}

// Info is the server state getrpcinfo reports.
type Info struct {
	// ActiveCommands lists the calls being run, the getrpcinfo call itself
	// included.
	ActiveCommands []ActiveCommand `json:"active_commands"`
	// LogPath is the absolute path of the debug log.
	LogPath string `json:"logpath"`
}
