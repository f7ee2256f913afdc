package methods
import ("testing";"github.com/descwallet/descwallet/internal/testvec")
func TestTryMusig(t *testing.T){
	var file struct{ Scenarios []walletScenario `json:"scenarios"` }
	testvec.Load(t, "core_rpc/wallet.json", &file)
	for _, sc := range file.Scenarios { if sc.ID=="musig-imports" { replayWalletScenario(t, sc) } }
}
