package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/walletscan"
)

// chainCheckTimeout bounds the first contact with the backend at start.
const chainCheckTimeout = 15 * time.Second

// openChain connects to the configured chain backend and returns the
// service that follows it for the wallets; nil when the node runs offline
// (neither -chainbackend nor -chainrpcconnect given). A backend on another
// network or refusing the credentials stops the start; an unreachable one
// is only logged, and followed once it answers.
func (n *Node) openChain(ctx context.Context) (*walletscan.Service, error) {
	c := n.cfg.Chain
	if c.Backend == "" && c.Connect == "" {
		n.log.Info("no chain backend configured; running offline")
		return nil, nil
	}
	kind := chain.Kind(c.Backend)
	if kind == "" {
		kind = chain.KindBitcoind
	}
	client, err := chain.New(chain.Config{Kind: kind, Net: n.cfg.Network.Params, Host: c.Connect,
		User: c.User, Password: c.Password, CookieFile: c.CookieFile, CertFile: c.Cert})
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, chainCheckTimeout)
	err = client.Check(cctx)
	cancel()
	log := n.logs.Logger(SubScan)
	switch {
	case errors.Is(err, chain.ErrWrongNetwork), errors.Is(err, chain.ErrAuth):
		return nil, fmt.Errorf("chain backend: %v", err)
	case err != nil:
		log.Warn("chain backend not reachable yet; will retry", "backend", client.String(), "err", err)
	default:
		log.Info("chain backend connected", "backend", client.String())
	}
	wcfg := walletscan.Config{Backend: client, Net: n.cfg.Network.Params, Log: log, Poll: c.Poll}
	if c.BlockNotify != "" {
		wcfg.TipChanged = n.notif.block
	}
	return walletscan.New(wcfg), nil
}
