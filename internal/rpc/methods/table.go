package methods

import (
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
)

// Deps is what the methods need from the node. The node fills it in before
// the server starts; fields for the wallet manager and the chain backend
// join here as those packages land (each declared as an interface in this
// package, holding only what the methods call).
type Deps struct {
	// Net is the network the node runs on.
	Net *chaincfg.Params
	// Stop asks the node to shut down; it returns at once.
	Stop func()
	// StartTime is when the node started (uptime counts from it).
	StartTime time.Time
	// RPCInfo reports the server's active calls and the log path
	// (getrpcinfo); nil reads as no active calls and no log.
	RPCInfo func() rpc.Info
}

// All returns every method the node serves. To add a method, write its
// constructor (func newXxx(d *Deps) *rpc.Method) in its own file and add one
// line to the list below.
func All(d *Deps) []*rpc.Method {
	list := []*rpc.Method{
		// Control.
		newGetRPCInfo(d),
		newStop(d),
		newUptime(d),
		// Util.
		newDeriveAddresses(d), newGetDescriptorInfo(d),
		// Testing aids (hidden from the help list).
		newEcho(d),
		newEchoJSON(d),
	}
	// help describes the whole table, itself included.
	return append(list, newHelp(&list))
}
