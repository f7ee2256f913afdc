package methods

import (
	"context"
	"sort"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
)

type blockchainInfo struct {
	Chain                string    `json:"chain"`
	Blocks               int32     `json:"blocks"`
	Headers              int32     `json:"headers"`
	BestBlockHash        string    `json:"bestblockhash"`
	Difficulty           coreFloat `json:"difficulty"`
	Time                 int64     `json:"time"`
	MedianTime           int64     `json:"mediantime"`
	VerificationProgress float64   `json:"verificationprogress"`
	InitialBlockDownload bool      `json:"initialblockdownload"`
	SizeOnDisk           int64     `json:"size_on_disk"`
	Pruned               bool      `json:"pruned"`
	Warnings             []string  `json:"warnings"`
}

// chainName returns Core's name of a network.
func chainName(net *chaincfg.Params) string {
	switch net.Name {
	case chaincfg.MainNetParams.Name:
		return "main"
	case chaincfg.TestNet3Params.Name:
		return "test"
	case chaincfg.TestNet4Params.Name:
		return "testnet4"
	case chaincfg.SigNetParams.Name:
		return "signet"
	case chaincfg.RegressionNetParams.Name:
		return "regtest"
	}
	return net.Name
}

// newGetBlockchainInfo returns the getblockchaininfo method.
func newGetBlockchainInfo(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getblockchaininfo",
		Category:    "blockchain",
		Description: "Describes the chain as the node's backend serves it.",
		Result:      "{ \"chain\", \"blocks\", \"headers\", \"bestblockhash\", \"difficulty\", \"time\", \"mediantime\", ... }",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Chain == nil {
				return nil, errNoChain
			}
			b := d.Chain.Backend()
			tip, err := b.Tip(ctx)
			if err != nil {
				return nil, MapError(err)
			}
			var heights []int32
			for h := max(0, tip.Height-10); h <= tip.Height; h++ {
				heights = append(heights, h)
			}
			hashes, err := b.BlockHashes(ctx, heights)
			if err != nil {
				return nil, MapError(err)
			}
			hdrs, err := b.Headers(ctx, hashes)
			if err != nil {
				return nil, MapError(err)
			}
			times := make([]int64, len(hdrs))
			for i, h := range hdrs {
				times[i] = h.Timestamp.Unix()
			}
			last := hdrs[len(hdrs)-1]
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			return blockchainInfo{Chain: chainName(d.Net), Blocks: tip.Height, Headers: tip.Height,
				BestBlockHash: tip.Hash.String(), Difficulty: coreFloat(difficulty(last.Bits)),
				Time: last.Timestamp.Unix(), MedianTime: times[len(times)/2], VerificationProgress: 1,
				Warnings: []string{}}, nil
		},
	}
}

// newGetBlockCount returns the getblockcount method.
func newGetBlockCount(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getblockcount",
		Category:    "blockchain",
		Description: "Returns the height of the backend's best chain.",
		Result:      "n    (numeric) the height of the tip",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Chain == nil {
				return nil, errNoChain
			}
			tip, err := d.Chain.Backend().Tip(ctx)
			if err != nil {
				return nil, MapError(err)
			}
			return tip.Height, nil
		},
	}
}

// difficulty returns the proof-of-work difficulty of compact bits, as
// Core's GetDifficulty computes it.
func difficulty(bits uint32) float64 {
	mant := bits & 0x00ffffff
	if mant == 0 {
		return 0
	}
	shift := int((bits >> 24) & 0xff)
	diff := float64(0x0000ffff) / float64(mant)
	for ; shift < 29; shift++ {
		diff *= 256
	}
	for ; shift > 29; shift-- {
		diff /= 256
	}
	return diff
}
