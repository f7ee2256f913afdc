package node

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/wallet"
)

// maxPruneInterval is the longest wait between two prunings of the event
// logs; short retention ages are pruned more often (a quarter of the age).
const maxPruneInterval = 10 * time.Second

// eventRetention reads -eventretention: "0" or nothing keeps every event;
// otherwise one or two terms separated by a comma, a count (an integer:
// keep the newest that many events) and an age (an integer followed by s,
// m, h, d or w: keep the events written since then).
func eventRetention(v string) (wallet.EventRetention, error) {
	var r wallet.EventRetention
	if v == "" || v == "0" {
		return r, nil
	}
	bad := fmt.Errorf("invalid -eventretention=%s; must be a count of events, an age such as 30d (s, m, h, d, w), or both separated by a comma", v)
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		unit := int64(0)
		if f != "" {
			switch f[len(f)-1] {
			case 's':
				unit = 1
			case 'm':
				unit = 60
			case 'h':
				unit = 3600
			case 'd':
				unit = 86400
			case 'w':
				unit = 7 * 86400
			}
		}
		num := f
		if unit > 0 {
			num = f[:len(f)-1]
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n < 1 || n > 1<<40 {
			return r, bad
		}
		switch {
		case unit > 0 && r.Age == 0:
			r.Age = n * unit
		case unit == 0 && r.Count == 0:
			r.Count = n
		default:
			return r, bad
		}
	}
	return r, nil
}

// startPruner prunes the event log of every loaded wallet in the
// background until the node stops, once at start and then at intervals,
// never past what a delivery target of held (the webhooks) has
// acknowledged.
func (n *Node) startPruner(r wallet.EventRetention, held []string) {
	if r.Count <= 0 && r.Age <= 0 {
		return
	}
	interval := maxPruneInterval
	if r.Age > 0 {
		interval = min(interval, max(250*time.Millisecond, time.Duration(r.Age)*time.Second/4))
	}
	n.pruneDone = make(chan struct{})
	wlt, log := n.wlt, n.log
	safego.Go("event pruning", func() error {
		defer close(n.pruneDone)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			for _, name := range wlt.List() {
				w, ok := wlt.Get(name)
				if !ok {
					continue
				}
				removed, err := w.PruneEvents(ctx, r, time.Now().Unix(), held)
				switch {
				case err != nil && !w.Closed():
					log.Warn("pruning the event log failed", "wallet", name, "err", err)
				case removed > 0:
					log.Debug("event log pruned", "wallet", name, "removed", removed)
				}
			}
			select {
			case <-n.stopped:
				return nil
			case <-t.C:
			}
		}
	})
}
