package psbt_test

import (
	"fmt"

	"github.com/descwallet/descwallet/psbt"
)

// A PSBT is decoded as Core decodes it, inspected, converted to version 2
// and back, and written in Core's form.
func Example() {
	// The creator vector of Core's rpc_psbt.json.
	const s = "cHNidP8BAJoCAAAAAljoeiG1ba8MI76OcHBFbDNvfLqlyHV5JPVFiHuyq911AAAAAAD/////" +
		"g40EJ9DsZQpoqka7CwmK6kQiwHGyyng1Kgd5WdB86h0BAAAAAP////8CcKrwCAAAAAAWABTYXCtx" +
		"0AYLCcmIauuBXlCZHdoSTQDh9QUAAAAAFgAUAK6pouXw+HaliN9VRuh0LR2HAI8AAAAAAAAAAAA="
	p, err := psbt.DecodeBase64(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(p.Inputs), "inputs,", len(p.Outputs), "outputs, version", p.GetVersion())
	v2, _ := p.ToV2()
	back, _ := v2.ToV0()
	fmt.Println("v0 -> v2 -> v0 unchanged:", back.Base64() == p.Base64())

	_, err = psbt.DecodeBase64("cHNidP8A")
	fmt.Println(err)
	// Output:
	// 2 inputs, 2 outputs, version 0
	// v0 -> v2 -> v0 unchanged: true
	// No unsigned transaction was provided: iostream error
}
