package wallet

// SetEncryptHook installs a function that Encrypt calls after sealing each
// record inside its transaction (crash tests).
func SetEncryptHook(f func(done, total int)) { encryptHook = f }

// SetEncryptCommitHook installs a function that Encrypt calls once its
// sealing transaction has committed, before the file is rewritten (crash
// tests).
func SetEncryptCommitHook(f func()) { encryptCommitHook = f }
