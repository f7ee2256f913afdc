package rpc

import (
	"slices"
	"strings"
)

// Whitelist is the per-user method allow-list of -rpcwhitelist and
// -rpcwhitelistdefault, with Core's rules:
//
//   - each value is "<user>:<method>,<method>..."; the method list is split
//     at every ',' and ' ' (empty pieces are kept and match no real
//     method); a value without ':' names a user whose list starts empty;
//   - several values for one user intersect;
//   - a user with a list may call only the methods in it;
//   - a user without a list may call anything, unless the default is on, in
//     which case it may call nothing.
//
// No value is rejected: Core accepts every -rpcwhitelist text.
type Whitelist struct {
	users map[string]map[string]struct{}
	deny  bool
}

// NewWhitelist builds the allow-list from the -rpcwhitelist values.
// denyDefault is -rpcwhitelistdefault; nil means its default, which is on
// exactly when at least one -rpcwhitelist value is given.
func NewWhitelist(values []string, denyDefault *bool) *Whitelist {
	w := &Whitelist{users: make(map[string]map[string]struct{}), deny: len(values) > 0}
	if denyDefault != nil {
		w.deny = *denyDefault
	}
	for _, v := range values {
		user, list, hasList := strings.Cut(v, ":")
		old, seen := w.users[user]
		if !seen {
			old = map[string]struct{}{}
			w.users[user] = old
		}
		if !hasList {
			continue
		}
		set := make(map[string]struct{})
		for _, m := range splitAny(list, ", ") {
			if _, ok := old[m]; ok || !seen {
				set[m] = struct{}{}
			}
		}
		w.users[user] = set
	}
	return w
}

// splitAny splits s at every byte of seps, keeping empty pieces.
func splitAny(s, seps string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(seps, s[i]) >= 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// DenyDefault reports whether users without a list are refused everything.
func (w *Whitelist) DenyDefault() bool { return w.deny }

// HasList reports whether user has a method list.
func (w *Whitelist) HasList(user string) bool {
	_, ok := w.users[user]
	return ok
}

// Allowed reports whether user may call method.
func (w *Whitelist) Allowed(user, method string) bool {
	set, ok := w.users[user]
	if !ok {
		return !w.deny
	}
	_, ok = set[method]
	return ok
}

// Methods returns the methods user may call, sorted, and whether the user
// has a list at all.
func (w *Whitelist) Methods(user string) ([]string, bool) {
	set, ok := w.users[user]
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	slices.Sort(out)
	return out, true
}
