package wallet

// SetEncryptHook installs a function that Encrypt calls after sealing each
// record inside its transaction (crash tests).
func SetEncryptHook(f func(done, total int)) { encryptHook = f }
