package descriptor_test

import (
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/descwallet/descwallet/descriptor"
)

// Parse a ranged descriptor, print its public form and expand two indexes.
func Example() {
	d, err := descriptor.Parse("wpkh([d34db33f/84'/0'/0']xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL/0/*)",
		&chaincfg.MainNetParams)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.String())
	fmt.Println(d.IsRange(), d.OutputType())
	for i := uint32(0); i < 2; i++ {
		outs, err := d.Expand(i, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(hex.EncodeToString(outs[0].ScriptPubKey), outs[0].Keys[0].Origin)
	}
	_, err = descriptor.Parse("wpkh(xpub/0/*)#abcdefgh", &chaincfg.MainNetParams)
	fmt.Println(err)
	// Output:
	// wpkh([d34db33f/84'/0'/0']xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL/0/*)#yq904q8l
	// true bech32
	// 00143099ad49dfdd021bf3748f7f858e0d1fa0b4f6f8 d34db33f/84h/0h/0h/0/0
	// 0014fcb408d9c05b3dd4bd4cce49e9c271350d1e66ed d34db33f/84h/0h/0h/0/1
	// Provided checksum 'abcdefgh' does not match computed checksum 'y5fhay0d'
}
