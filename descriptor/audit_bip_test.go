package descriptor

import (
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// Every example of the BIP 380 to 390 test-vector lists that the vectors
// file does not carry, with the scripts the BIPs give (index 0, 1, 2 for
// ranged descriptors) or, for the invalid ones, the message Core's parser
// gives.

const (
	bXV2  = "xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJFjaPdGZ2y9WACViL4L"
	bXVM  = "xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U"
	bXV3  = "xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt"
	bXV4  = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
	bXP13 = "xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH"
	bXPM  = "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB"
	bK60  = "0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600"
	bM1   = "02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
	bM2   = "03dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659"
	bM3   = "023590a94e768f8e1815c2f24b4d80a8e3149316c3518ce7b7ad338368d038ca66"
	bMu   = "musig(" + bM1 + "," + bM2 + "," + bM3 + ")"
	bXO   = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"
)

func TestAuditBIPValid(t *testing.T) {
	net := &chaincfg.MainNetParams
	cases := []struct {
		desc    string
		scripts []string
	}{
		// BIP 381.
		{"pk(" + aW + ")", []string{"2103a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bdac"}},
		{"pk(" + aK + ")", []string{"2103a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bdac"}},
		{"pkh(" + aWU + ")", []string{"76a914b5bd079c4d57cc7fc28ecf8213a6b791625b818388ac"}},
		{"pkh(" + aU + ")", []string{"76a914b5bd079c4d57cc7fc28ecf8213a6b791625b818388ac"}},
		{"sh(pk(" + aW + "))", []string{"a9141857af51a5e516552b3086430fd8ce55f7c1a52487"}},
		{"sh(pk(" + aK + "))", []string{"a9141857af51a5e516552b3086430fd8ce55f7c1a52487"}},
		// BIP 382.
		{"wpkh([ffffffff/13']" + bXP13 + "/1/2/*)", []string{
			"0014326b2249e3a25d5dc60935f044ee835d090ba859",
			"0014af0bd98abc2f2cae66e36896a39ffe2d32984fb7",
			"00141fa798efd1cbf95cebf912c031b8a4a6e9fb9f27"}},
		{"sh(wpkh(" + bXV4 + "/10/20/30/40/*'))", []string{
			"a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87",
			"a914bed59fc0024fae941d6e20a3b44a109ae740129287",
			"a9148483aa1116eb9c05c482a72bada4b1db24af654387"}},
		// BIP 383.
		{"wsh(multi(2," + bXVM + "/2147483647'/0," + bXV3 + "/1/2/*," + bXV4 + "/10/20/30/40/*'))", []string{
			"0020b92623201f3bb7c3771d45b2ad1d0351ea8fbf8cfe0a0e570264e1075fa1948f",
			"002036a08bbe4923af41cf4316817c93b8d37e2f635dd25cfff06bd50df6ae7ea203",
			"0020a96e7ab4607ca6b261bfe3245ffda9c746b28d3f59e83d34820ec0e2b36c139c"}},
		// BIP 385.
		{"raw(a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87)", []string{"a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87"}},
		{"addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)", []string{"a914eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee87"}},
		// BIP 386.
		{"tr(" + aX + ")", []string{"512077aab6e066f8a7419c5ab714c12c67d25007ed55a43cadcacb4d7a970a093f11"}},
		{"tr(" + aW + ")", []string{"512077aab6e066f8a7419c5ab714c12c67d25007ed55a43cadcacb4d7a970a093f11"}},
		{"tr(" + aXV + "/0/*,pk(" + aXV + "/1/*))", []string{
			"512078bc707124daa551b65af74de2ec128b7525e10f374dc67b64e00ce0ab8b3e12",
			"512001f0a02a17808c20134b78faab80ef93ffba82261ccef0a2314f5d62b6438f11",
			"512021024954fcec88237a9386fce80ef2ced5f1e91b422b26c59ccfc174c8d1ad25"}},
		// BIP 387.
		{"tr(" + bXO + ",sortedmulti_a(2," + aXP + "/*," + aXP2 + "/0/0/*))", []string{
			"5120abd47468515223f58a1a18edfde709a7a2aab2b696d59ecf8c34f0ba274ef772",
			"5120fe62e7ed20705bd1d3678e072bc999acb014f07795fa02cb8f25a7aa787e8cbd",
			"51201311093750f459039adaa2a5ed23b0f7a8ae2c2ffb07c5390ea37e2fb1050b41"}},
		{"tr(" + bXO + ",multi_a(2," + bXVM + "/2147483647'/0," + bXV3 + "/1/2/*," + bXV4 + "/10/20/30/40/*'))", []string{
			"5120e4c8f2b0a7d3a688ac131cb03248c0d4b0a59bbd4f37211c848cfbd22a981192",
			"5120827faedaa21e52fca2ac83b53afd1ab7d4d1e6ce67ff42b19f2723d48b5a19ab",
			"5120647495ed09de61a3a324704f9203c130d655bf3141f9b748df8f7be7e9af55a4"}},
		// BIP 390.
		{"tr(f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9,pk(musig(" + aXP + "," + aXP2 + ")/0/*))", []string{
			"512068983d461174afc90c26f3b2821d8a9ced9534586a756763b68371a404635cc8",
			"5120368e2d864115181bdc8bb5dc8684be8d0760d5c33315570d71a21afce4afd43e",
			"512097a1e6270b33ad85744677418bae5f59ea9136027223bc6e282c47c167b471d5"}},
	}
	for _, c := range cases {
		d, err := Parse(c.desc, net)
		if err != nil {
			t.Errorf("%s: %v", c.desc, err)
			continue
		}
		n := len(c.scripts)
		if !d.IsRange() {
			n = 1
		}
		for i := 0; i < n; i++ {
			outs, err := d.Expand(uint32(i), NewCache())
			if err != nil || len(outs) != 1 {
				t.Errorf("%s at %d: %d outputs, %v", c.desc, i, len(outs), err)
				continue
			}
			if got := hex.EncodeToString(outs[0].ScriptPubKey); got != c.scripts[i] {
				t.Errorf("%s at %d: %s, want %s", c.desc, i, got, c.scripts[i])
			}
		}
	}
	// BIP 389: a multipath descriptor expands into these descriptors.
	multi := []struct {
		desc string
		exp  []string
	}{
		{"pkh(" + bXVM + "/<2147483647h;0>/0)", []string{"pkh(" + bXVM + "/2147483647h/0)", "pkh(" + bXVM + "/0/0)"}},
		{"wpkh([ffffffff/13h]" + bXP13 + "/<1;3>/2/*)", []string{
			"wpkh([ffffffff/13h]" + bXP13 + "/1/2/*)", "wpkh([ffffffff/13h]" + bXP13 + "/3/2/*)"}},
		{"pkh(" + bXPM + "/<0;1;2>)", []string{"pkh(" + bXPM + "/0)", "pkh(" + bXPM + "/1)", "pkh(" + bXPM + "/2)"}},
	}
	for _, c := range multi {
		d, err := Parse(c.desc, net)
		if err != nil {
			t.Errorf("%s: %v", c.desc, err)
			continue
		}
		bs := d.Multipath()
		if len(bs) != len(c.exp) {
			t.Errorf("%s: %d branches", c.desc, len(bs))
			continue
		}
		for i, e := range c.exp {
			want, err := Parse(e, net)
			if err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			if bs[i].String() != want.String() {
				t.Errorf("%s branch %d: %s, want %s", c.desc, i, bs[i].String(), want.String())
			}
		}
	}
}

func TestAuditBIPKeyExpressions(t *testing.T) {
	net := &chaincfg.MainNetParams
	xv := aXV
	valid := []string{
		bK60, aU,
		"[deadbeef/0h/0h/0h]" + bK60, "[deadbeef/0'/0'/0']" + bK60, "[deadbeef/0'/0h/0']" + bK60,
		aWU, aW, aXP,
		"[deadbeef/0h/1h/2h]" + aXP, "[deadbeef/0h/1h/2h]" + aXP + "/3/4/5", "[deadbeef/0h/1h/2h]" + aXP + "/3/4/5/*",
		aXP + "/3h/4h/5h/*", aXP + "/3h/4h/5h/*h", "[deadbeef/0h/1h/2]" + aXP + "/3h/4h/5h/*h",
		xv, "[deadbeef/0h/1h/2h]" + xv, "[deadbeef/0h/1h/2h]" + xv + "/3/4/5", "[deadbeef/0h/1h/2h]" + xv + "/3/4/5/*",
		xv + "/3h/4h/5h/*", xv + "/3h/4h/5h/*h", "[deadbeef/0h/1h/2]" + xv + "/3h/4h/5h/*h",
	}
	for _, k := range valid {
		if _, err := Parse("pk("+k+")", net); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	invalid := []struct{ key, want string }{
		{"[deadbeef/0h/0h/0h/*]" + bK60, "pk(): Key path value '*' is not a valid uint32"},
		{"[deadbeef/0h/0h/0h/]" + bK60, "pk(): Key path value '' is not a valid uint32"},
		{"[deadbef/0h/0h/0h]" + bK60, "pk(): Fingerprint is not 4 bytes (7 characters instead of 8 characters)"},
		{"[deadbeeef/0h/0h/0h]" + bK60, "pk(): Fingerprint is not 4 bytes (9 characters instead of 8 characters)"},
		{"[deadbeef/0f/0f/0f]" + bK60, "pk(): Key path value '0f' is not a valid uint32"},
		{"[deadbeef/0H/0H/0H]" + bK60, "pk(): Key path value '0H' is not a valid uint32"},
		{"[deadbeef/-0/-0/-0]" + bK60, "pk(): Key path value '-0' is not a valid uint32"},
		{aW + "/0", "pk(): key '" + aW + "' is not valid"},
		{aW + "/*", "pk(): key '" + aW + "' is not valid"},
		{bXVM + "/2147483648", "pk(): Key path value 2147483648 is out of range"},
		{bXVM + "/1aa", "pk(): Key path value '1aa' is not a valid uint32"},
		{"[aaaaaaaa][aaaaaaaa]" + bXVM + "/2147483647'/0", "pk(): Multiple ']' characters found for a single pubkey"},
		{"aaaaaaaa]" + bXVM + "/2147483647'/0", "pk(): Key origin start '[ character expected but not found, got 'a' instead"},
		{"[gaaaaaaa]" + bXVM + "/2147483647'/0", "pk(): Fingerprint 'gaaaaaaa' is not hex"},
		{"[deadbeef]", "pk(): No key provided"},
	}
	for _, c := range invalid {
		_, err := Parse("pk("+c.key+")", net)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.key, err, c.want)
		}
	}
}

func TestAuditBIPInvalid(t *testing.T) {
	net := &chaincfg.MainNetParams
	multi16 := "03669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0,0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600,0362a74e399c39ed5593852a30147f2959b56bb827dfa3e60e464b02ccf87dc5e8,0261345b53de74a4d721ef877c255429961b7e43714171ac06168d7e08c542a8b8,02da72e8b46901a65d4374fe6315538d8f368557dda3a1dcf9ea903f3afe7314c8,0318c82dd0b53fd3a932d16e0ba9e278fcc937c582d5781be626ff16e201f72286,0297ccef1ef99f9d73dec9ad37476ddb232f1238aff877af19e72ba04493361009,02e502cfd5c3f972fe9a3e2a18827820638f96b6f347e54d63deb839011fd5765d,03e687710f0e3ebe81c1037074da939d409c0025f17eb86adb9427d28f0f7ae0e9,02c04d3a5274952acdbc76987f3184b346a483d43be40874624b29e3692c1df5af,02ed06e0f418b5b43a7ec01d1d7d27290fa15f75771cb69b642a51471c29c84acd,036d46073cbb9ffee90473f3da429abc8de7f8751199da44485682a989a4bebb24,02f5d1ff7c9029a80a4e36b9a5497027ef7f3e73384a4a94fbfe7c4e9164eec8bc,02e41deffd1b7cce11cde209a781adcffdabd1b91c0ba0375857a2bfd9302419f3,02d76625f7956a7fc505ab02556c23ee72d832f1bac391bcd2d3abce5710a13d06,0399eb0a5487515802dc14544cf10b3666623762fbed2ec38a3975716e2c29c232"
	cases := []struct{ desc, want string }{
		// BIP 380 checksums.
		{"raw(deadbeef)#", "Expected 8 character checksum, not 0 characters"},
		{"raw(deadbeef)#89f8spxmx", "Expected 8 character checksum, not 9 characters"},
		{"raw(deadbeef)#89f8spx", "Expected 8 character checksum, not 7 characters"},
		{"raw(deedbeef)#89f8spxm", "Provided checksum '89f8spxm' does not match computed checksum '" + mustSum(t, "raw(deedbeef)") + "'"},
		{"raw(deedbeef)##9f8spxm", "Multiple '#' symbols"},
		{"raw(Ü)#00000000", "Invalid characters in payload"},
		// BIP 381.
		{"pk(pk(" + aK + "))", "pk(): key 'pk(" + aK + ")' is not valid"},
		{"pkh(pk(" + aK + "))", "pkh(): key 'pk(" + aK + ")' is not valid"},
		{"sh(" + aK + ")", "A function is needed within P2SH"},
		{"sh(sh(pkh(" + aK + ")))", "Can only have sh() at top level"},
		// BIP 382.
		{"wpkh(" + aWU + ")", "wpkh(): Uncompressed keys are not allowed"},
		{"sh(wpkh(" + aWU + "))", "wpkh(): Uncompressed keys are not allowed"},
		{"wpkh(" + aU + ")", "wpkh(): Uncompressed keys are not allowed"},
		{"sh(wpkh(" + aU + "))", "wpkh(): Uncompressed keys are not allowed"},
		{"wsh(pk(" + aWU + "))", "pk(): Uncompressed keys are not allowed"},
		{"wsh(pk(" + aU + "))", "pk(): Uncompressed keys are not allowed"},
		{"wsh(wpkh(" + aK + "))", "Can only have wpkh() at top level or inside sh()"},
		{"wsh(wsh(pkh(" + aK + ")))", "Can only have wsh() at top level or inside sh()"},
		{"sh(wsh(wsh(pkh(" + aK + "))))", "Can only have wsh() at top level or inside sh()"},
		{"wpkh(wsh(pkh(" + aK + ")))", "wpkh(): key 'wsh(pkh(" + aK + "))' is not valid"},
		{"wsh(" + aK + ")", "A function is needed within P2WSH"},
		// BIP 383.
		{"sh(multi(16," + multi16 + "))", "P2SH script is too large, 547 bytes is larger than 520 bytes"},
		{"multi(a," + aK + "," + aU + ")", "Multi threshold 'a' is not valid"},
		{"multi(0," + aK + "," + aU + ")", "Multisig threshold cannot be 0, must be at least 1"},
		{"multi(3," + aW + "," + aWU + ")", "Multisig threshold cannot be larger than the number of keys; threshold is 3 but only 2 keys specified"},
		// BIP 384.
		{"sh(combo(" + aK + "))", "Can only have combo() at top level"},
		{"wsh(combo(" + aK + "))", "Can only have combo() at top level"},
		{"combo(pk(" + aK + "))", "combo(): key 'pk(" + aK + ")' is not valid"},
		// BIP 385.
		{"raw(asdf)", "Raw script is not hex"},
		{"addr(asdf)", "Address is not valid"},
		{"sh(raw(deadbeef))", "Can only have raw() at top level"},
		{"wsh(raw(deadbeef))", "Can only have raw() at top level"},
		{"sh(addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j))", "Can only have addr() at top level"},
		{"wsh(addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j))", "Can only have addr() at top level"},
		// BIP 386.
		{"tr(" + aWU + ")", "tr(): Uncompressed keys are not allowed"},
		{"tr(" + aU + ")", "tr(): Uncompressed keys are not allowed"},
		{"wsh(tr(" + aX + "))", "Can only have tr at top level"},
		{"sh(tr(" + aX + "))", "Can only have tr at top level"},
		{"tr(" + aX + ", pkh(" + aW + "))", "' pkh(" + aW + ")' is not a valid descriptor function"},
		// BIP 387.
		{"multi_a(1,03669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0)", "Can only have multi_a/sortedmulti_a inside tr()"},
		{"sh(multi_a(1,03669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0))", "Can only have multi_a/sortedmulti_a inside tr()"},
		{"wsh(multi_a(1,03669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0))", "Can only have multi_a/sortedmulti_a inside tr()"},
		{"tr(" + bXO + ",multi_a(a," + aK + "))", "Multi threshold 'a' is not valid"},
		{"tr(" + bXO + ",multi_a(0," + aK + "))", "Multisig threshold cannot be 0, must be at least 1"},
		{"tr(" + bXO + ",multi_a(1," + aU + "))", "Multi: Uncompressed keys are not allowed"},
		// The uncompressed key fails before the threshold is compared.
		{"tr(" + bXO + ",multi_a(3," + aW + "," + aWU + "))", "Multi: Uncompressed keys are not allowed"},
		// BIP 389.
		{"pkh(" + bXVM + "/<0;1>/<2;3>)", "pkh(): Multiple multipath key path specifiers found"},
		{"pkh([deadbeef/<0;1>]" + bXPM + "/0)", "pkh(): Key path value '<0;1>' specifies multipath in a section where multipath is not allowed"},
		{"wpkh(" + bXPM + "/<>/*)", "wpkh(): Multipath key path specifiers must have at least two items"},
		{"wpkh(" + bXPM + "/0>/*)", "wpkh(): Key path value '0>' is not a valid uint32"},
		{"wpkh(" + bXPM + "/<0/*)", "wpkh(): Key path value '<0' is not a valid uint32"},
		{"wpkh(" + bXPM + "/<0;>/*)", "wpkh(): Key path value '' is not a valid uint32"},
		// BIP 390.
		{"pk(" + bMu + ")", "pk(): musig() is only allowed in tr() and rawtr()"},
		{"pkh(" + bMu + ")", "pkh(): musig() is only allowed in tr() and rawtr()"},
		{"wpkh(" + bMu + ")", "wpkh(): musig() is only allowed in tr() and rawtr()"},
		{"combo(" + bMu + ")", "combo(): musig() is only allowed in tr() and rawtr()"},
		{"sh(wpkh(" + bMu + "))", "wpkh(): musig() is only allowed in tr() and rawtr()"},
		{"sh(wsh(pk(" + bMu + ")))", "pk(): musig() is only allowed in tr() and rawtr()"},
		{"wsh(" + bMu + ")", "A function is needed within P2WSH"},
		{"sh(" + bMu + ")", "A function is needed within P2SH"},
		{"tr(" + bMu + "/0/0)", "tr(): musig(): derivation requires all participants to be xpubs or xprvs"},
		{"tr(musig(" + aXP + "/*," + aXP2 + ")/0/*)", "tr(): musig(): Cannot have ranged participant keys if musig() also has derivation"},
		{"tr(musig(" + aXP + "," + aXP2 + ")/0h/*)", "tr(): musig(): cannot have hardened derivation steps"},
		{"tr(musig(" + aXP + "," + aXP2 + ")/0/*h)", "tr(): musig(): Cannot have hardened child derivation"},
	}
	for _, c := range cases {
		_, err := Parse(c.desc, net)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.desc, err, c.want)
		}
	}
}

func mustSum(t *testing.T, s string) string {
	t.Helper()
	sum, err := Checksum(s)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}
