package server

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// User is one account of a users file.
type User struct {
	Name   string
	Groups []string

	password []byte   // bcrypt hash, or nil
	token    [32]byte // sha256 of the bearer token, when hasToken
	hasToken bool
}

// Users are the accounts that may sign in, by name and by token.
type Users struct {
	byName  map[string]*User
	byToken map[[32]byte]*User

	dummyOnce sync.Once
	dummyHash []byte // see dummy
}

// LoadUsers reads a users file; see ParseUsers for its format.
func LoadUsers(path string) (*Users, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	defer f.Close()
	u, err := ParseUsers(f)
	if err != nil {
		return nil, fmt.Errorf("users file %s: %w", path, err)
	}
	return u, nil
}

// ParseUsers reads accounts, one per line: a name, then fields
// password=BCRYPT-HASH, token-sha256=HEX (the SHA-256 of a bearer token,
// so that the file holds no usable secret) and groups=a,b,c, in any order.
// An account needs a password or a token (or both). Blank lines and lines
// starting with # are ignored.
//
//	# chromafs hash-password prints a bcrypt hash, chromafs hash-token a token's digest
//	alice   password=$2a$10$...   groups=staff,sales
//	ci-bot  token-sha256=9f86d0... groups=staff
func ParseUsers(r io.Reader) (*Users, error) {
	u := &Users{byName: map[string]*User{}, byToken: map[[32]byte]*User{}}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		user := &User{Name: fields[0]}
		if strings.ContainsAny(user.Name, ":=") {
			return nil, fmt.Errorf("line %d: user name %q contains ':' or '='", line, user.Name)
		}
		if _, dup := u.byName[user.Name]; dup {
			return nil, fmt.Errorf("line %d: user %q defined twice", line, user.Name)
		}
		for _, f := range fields[1:] {
			key, value, ok := strings.Cut(f, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: %q is not key=value", line, f)
			}
			switch key {
			case "password":
				if _, err := bcrypt.Cost([]byte(value)); err != nil {
					return nil, fmt.Errorf("line %d: password of %s is not a bcrypt hash: %w", line, user.Name, err)
				}
				user.password = []byte(value)
			case "token-sha256":
				b, err := hex.DecodeString(value)
				if err != nil || len(b) != sha256.Size {
					return nil, fmt.Errorf("line %d: token-sha256 of %s is not 64 hex digits", line, user.Name)
				}
				copy(user.token[:], b)
				user.hasToken = true
				if other, dup := u.byToken[user.token]; dup {
					return nil, fmt.Errorf("line %d: %s has the same token as %s", line, user.Name, other.Name)
				}
			case "groups":
				for _, g := range strings.Split(value, ",") {
					if g = strings.TrimSpace(g); g != "" {
						user.Groups = append(user.Groups, g)
					}
				}
			default:
				return nil, fmt.Errorf("line %d: unknown field %q (want password, token-sha256 or groups)", line, key)
			}
		}
		if user.password == nil && !user.hasToken {
			return nil, fmt.Errorf("line %d: user %s has neither a password nor a token", line, user.Name)
		}
		u.byName[user.Name] = user
		if user.hasToken {
			u.byToken[user.token] = user
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return u, nil
}

// Len returns the number of accounts.
func (u *Users) Len() int { return len(u.byName) }

// errBadCredentials is the one answer to every failed sign-in, whatever
// failed, so that it tells nothing about which names exist.
var errBadCredentials = errors.New("bad credentials")

// checkToken returns the user whose token this is.
func (u *Users) checkToken(token string) (*User, error) {
	sum := sha256.Sum256([]byte(token))
	user, ok := u.byToken[sum]
	if !ok || subtle.ConstantTimeCompare(user.token[:], sum[:]) != 1 {
		return nil, errBadCredentials
	}
	return user, nil
}

// dummy returns the hash compared against when a name is unknown (or
// has no password), so that a failed sign-in takes as long whether or
// not the name exists: a hash of the cost most of the file's passwords
// have (bcrypt's time grows with the cost). It is made on first use: a
// bcrypt hash is deliberately costly in CPU, which every chromafs process
// (grep, cat, ...) would otherwise pay at start.
func (u *Users) dummy() []byte {
	u.dummyOnce.Do(func() {
		u.dummyHash, _ = bcrypt.GenerateFromPassword([]byte("chromafs"), u.commonCost())
	})
	return u.dummyHash
}

// commonCost returns the bcrypt cost that most password hashes have (the
// higher one on a tie), or bcrypt.DefaultCost when there are none.
func (u *Users) commonCost() int {
	count := map[int]int{}
	best, bestN := bcrypt.DefaultCost, 0
	for _, user := range u.byName {
		if user.password == nil {
			continue
		}
		c, err := bcrypt.Cost(user.password)
		if err != nil {
			continue
		}
		count[c]++
		if n := count[c]; n > bestN || (n == bestN && c > best) {
			best, bestN = c, n
		}
	}
	return best
}

// checkPassword returns the user if password is theirs. It does one
// bcrypt comparison whatever the name, known or not.
func (u *Users) checkPassword(name, password string) (*User, error) {
	user, ok := u.byName[name]
	if !ok || user.password == nil {
		_ = bcrypt.CompareHashAndPassword(u.dummy(), []byte(password))
		return nil, errBadCredentials
	}
	if bcrypt.CompareHashAndPassword(user.password, []byte(password)) != nil {
		return nil, errBadCredentials
	}
	return user, nil
}

// HashPassword returns the bcrypt hash of a password, for a users file.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(h), err
}

// HashToken returns the SHA-256 of a bearer token in hex, for a users file.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
