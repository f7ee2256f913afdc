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
	wcfg := walletscan.Config{Backend: client, Net: n.cfg.Network.Params, Log: log, Poll: c.Poll,
		ResendInterval: c.ResendInterval}
	if c.BlockNotify != "" {
		wcfg.TipChanged = n.notif.block
	}
	if n.cfg.Wallet.Shared {
		// Several nodes serve the wallets: one follows the chain at a
		// time (the database is connected when the service starts).
		name := "descwallet chain follower " + n.cfg.Network.Name
		wcfg.Leader = func(ctx context.Context) (walletscan.Leadership, error) {
			l, err := n.pg.WaitLeader(ctx, name, leaderPoll)
			if l == nil {
				return nil, err
			}
			return l, err
		}
	}
	return walletscan.New(wcfg), nil
}

// leaderPoll is how often a node that does not lead tries to take the
// chain leadership, and how often the leader checks its lock's session:
// a leader's death is taken over within about twice this after the
// database sees its session end.
const leaderPoll = time.Second
