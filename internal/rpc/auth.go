package rpc

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CookieUser is the user name of cookie authentication.
const CookieUser = "__cookie__"

// credential is one accepted user: the password is kept only as
// HMAC-SHA256(key = salt text, message = password), Core's rpcauth form.
type credential struct {
	user string
	salt string
	hash []byte
}

// Authenticator checks HTTP Basic credentials against the configured users:
// -rpcuser/-rpcpassword, each -rpcauth and the cookie. All comparisons are
// constant-time. It is safe for concurrent use.
type Authenticator struct {
	creds []credential

	// lastGood caches the last accepted Authorization header value, so that
	// a keep-alive client does not pay an HMAC per call.
	mu       sync.RWMutex
	lastGood string
	lastUser string
}

// NewAuthenticator returns an authenticator with no users; add them with
// AddPassword, AddRPCAuth and AddCookie.
func NewAuthenticator() *Authenticator { return &Authenticator{} }

// AddPassword accepts user with password (-rpcuser/-rpcpassword).
func (a *Authenticator) AddPassword(user, password string) {
	var salt [16]byte
	rand.Read(salt[:])
	s := hex.EncodeToString(salt[:])
	a.creds = append(a.creds, credential{user: user, salt: s, hash: hmacHex(s, password)})
}

// AddRPCAuth accepts one -rpcauth value, "<user>:<salt>$<hash>" where hash
// is the lowercase hex HMAC-SHA256 of the password keyed with the salt
// text. A value that does not split into exactly those parts is an error,
// which aborts startup as in Core.
func (a *Authenticator) AddRPCAuth(value string) error {
	fields := strings.Split(value, ":")
	if len(fields) != 2 {
		return fmt.Errorf("invalid -rpcauth argument")
	}
	sh := strings.Split(fields[1], "$")
	if len(sh) != 2 {
		return fmt.Errorf("invalid -rpcauth argument")
	}
	hash, err := hex.DecodeString(strings.ToLower(sh[1]))
	if err != nil {
		// Core compares the hex text, so a non-hex hash never matches; keep
		// it as an impossible value rather than failing startup.
		hash = []byte("\x00invalid")
	}
	a.creds = append(a.creds, credential{user: fields[0], salt: sh[0], hash: hash})
	return nil
}

// GenerateCookie returns a new cookie secret: 32 random bytes as 64
// lowercase hex characters.
func GenerateCookie() string {
	var b [32]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// AddCookie accepts the cookie user with the given secret.
func (a *Authenticator) AddCookie(secret string) { a.AddPassword(CookieUser, secret) }

// Empty reports whether no user is configured (every request is refused).
func (a *Authenticator) Empty() bool { return len(a.creds) == 0 }

// WriteCookieFile writes "__cookie__:<secret>" (no newline) to path through
// a temporary file and a rename, with the given mode (0600, 0640 or 0644).
func WriteCookieFile(path, secret string, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(CookieUser + ":" + secret); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func hmacHex(salt, password string) []byte {
	m := hmac.New(sha256.New, []byte(salt))
	m.Write([]byte(password))
	return m.Sum(nil)
}

var errBadAuth = errors.New("bad credentials")

// Check verifies an Authorization header value. It accepts only the
// case-sensitive scheme "Basic " followed by standard base64 (surrounding
// whitespace ignored) of "user:password", split at the first colon.
func (a *Authenticator) Check(header string) bool {
	_, ok := a.User(header)
	return ok
}

// User verifies an Authorization header value as Check does and returns
// the authenticated user name.
func (a *Authenticator) User(header string) (string, bool) {
	a.mu.RLock()
	cached, cachedUser := a.lastGood, a.lastUser
	a.mu.RUnlock()
	if cached != "" && len(cached) == len(header) &&
		subtle.ConstantTimeCompare([]byte(cached), []byte(header)) == 1 {
		return cachedUser, true
	}
	user, err := a.check(header)
	if err != nil {
		return "", false
	}
	a.mu.Lock()
	a.lastGood, a.lastUser = header, user
	a.mu.Unlock()
	return user, true
}

func (a *Authenticator) check(header string) (string, error) {
	if !strings.HasPrefix(header, "Basic ") {
		return "", errBadAuth
	}
	tok := strings.Trim(header[6:], " \f\n\r\t\v")
	if strings.ContainsAny(tok, "\r\n") {
		return "", errBadAuth
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(tok)
	if err != nil {
		return "", errBadAuth
	}
	userPass := string(raw)
	colon := strings.IndexByte(userPass, ':')
	if colon < 0 {
		return "", errBadAuth
	}
	user, pass := userPass[:colon], userPass[colon+1:]
	ok := 0
	for _, c := range a.creds {
		userOK := subtle.ConstantTimeCompare([]byte(user), []byte(c.user))
		hashOK := subtle.ConstantTimeCompare(hmacHex(c.salt, pass), c.hash)
		ok |= userOK & hashOK
	}
	if ok == 1 {
		return user, nil
	}
	return "", errBadAuth
}
