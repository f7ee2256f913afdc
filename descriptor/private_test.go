package descriptor

import (
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// TestPrivateKeyPresence checks the three private-key questions against
// Core's rules: hasprivatekeys is true when any private key was parsed, a
// musig() participant's included; HavePrivateKeys needs every key; the
// private string (ToPrivateString) needs every key expression, but a
// musig() only one participant. The musig() strings are the ones a Core
// wallet accepted and listed with listdescriptors true.
func TestPrivateKeyPresence(t *testing.T) {
	const (
		tprv = "tprv8ZgxMBicQKsPdTpLiypn9WCSB5kkrVVqkHxT4KCGSZ93RfCWRizfv48RkbtFWMJXwBihSBLKGgZ22eJVmbmGCFBxBxP1XsGcb5edYfvuJ5i"
		tpub = "tpubD6NzVbkrYhZ4WhRd1yKaXpLptaJUVu8HGJhWx1LbM859gJksXU3iGvbW7QN62kxyyznrJgsmUNnJuCAVFgRRtGC5ch3yYj2Y2bKXvBXWEZK"
		pub1 = "02cfc119494e46afbc4ee87894fe68c94640a149c040e193b7e37d4d8237dadfc0"
		pub2 = "03fa2512662cf671a03e7c804cd7b56c02cee0f2e6452a46a6990b29e5872e759c"
	)
	cases := []struct {
		desc               string
		any, all, printing bool
	}{
		// Recorded: imported into a wallet with private keys (with the
		// "Not all private keys provided" warning) and listed as is.
		{"tr(musig(" + tprv + "," + tpub + ")/0/*)#d9kmq80k", true, false, true},
		{"tr(musig(" + tpub + "," + tprv + "))", true, false, true},
		{"tr(musig(" + tprv + "," + tprv + "/1))", true, true, true},
		{"tr(musig(" + tpub + "," + tpub + "/1)/0/*)", false, false, false},
		{"tr(musig(" + pub1 + "," + pub2 + "))", false, false, false},
		// Outside musig() every key expression needs its private key.
		{"wsh(multi(2," + tprv + "/0/*," + tpub + "/0/*))", true, false, false},
		{"tr(" + tpub + ",pk(musig(" + tprv + "," + tpub + ")))", true, false, false},
		{"tr(" + tprv + ",pk(musig(" + tprv + "," + tpub + ")))", true, false, true},
		{"tr(" + tprv + ",and_v(v:pk(" + tpub + "),older(10)))", true, false, false},
		{"tr(" + tprv + ",and_v(v:pk(" + tprv + "/1),older(10)))", true, true, true},
		{"wpkh(" + tprv + "/84h/1h/0h/0/*)", true, true, true},
		{"wpkh(" + tpub + "/0/*)", false, false, false},
		{"addr(bcrt1pfnhtssvcezlp63qfpvvm0ruf9k8r7v57ghq5lf69ru8mvj02265q0mmc6z)", false, false, false},
		{"raw(51)", false, false, false},
	}
	for _, c := range cases {
		d, err := Parse(c.desc, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		if got := d.HasPrivateKeys(); got != c.any {
			t.Errorf("%s: HasPrivateKeys %v, want %v", c.desc, got, c.any)
		}
		if got := d.HasAllPrivateKeys(); got != c.all {
			t.Errorf("%s: HasAllPrivateKeys %v, want %v", c.desc, got, c.all)
		}
		if got := d.HasPrivateForm(); got != c.printing {
			t.Errorf("%s: HasPrivateForm %v, want %v", c.desc, got, c.printing)
		}
		if pub := d.Public(); pub.HasPrivateKeys() || c.any && pub.HasPrivateForm() {
			t.Errorf("%s: the public copy still counts private keys", c.desc)
		}
		s, _ := d.PrivateString()
		want := c.desc
		if !strings.Contains(want, "#") {
			want = AddChecksum(want)
		}
		if c.printing && s != want {
			t.Errorf("%s: PrivateString %s", c.desc, s)
		}
	}
}
