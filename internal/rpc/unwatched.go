package rpc

import "context"

// serverCtxKey is the context key under which a call's context carries its
// server's own context, the one Shutdown cancels.
type serverCtxKey struct{}

// Unwatched returns a context for work that must outlive the call's
// client: it carries ctx's values and ends only when the server shuts down
// (or when ctx's server is unknown, never), not when the client hangs up.
// Core runs a call to its end whatever its client does, and clients rely
// on it for the calls that change a wallet: Specter starts a rescan with
// rescanblockchain and hangs up at once, and a client whose timeout is
// shorter than a large importdescriptors retries it expecting the first
// one to have finished. The returned function releases the context; call
// it when the work ends.
func Unwatched(ctx context.Context) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	srv, ok := ctx.Value(serverCtxKey{}).(context.Context)
	if !ok {
		return out, cancel
	}
	stop := context.AfterFunc(srv, cancel)
	return out, func() {
		stop()
		cancel()
	}
}
