package sign

import "github.com/descwallet/descwallet/internal/script"

// ScriptToAsm renders a script as Core's ScriptToAsmStr does without
// signature decoding (see script.Asm).
func ScriptToAsm(scr []byte) string { return script.Asm(scr, false) }
