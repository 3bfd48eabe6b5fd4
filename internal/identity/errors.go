package identity

import (
	"errors"
	"net/http"
	"strings"
)

// The reasons a bearer token is refused. Every error Verify and BearerToken
// return is an *Error that wraps exactly one of these (test with
// errors.Is); Status maps them to an HTTP status and Challenge to a
// WWW-Authenticate header.
var (
	// ErrNoToken: the request carries no bearer token (no Authorization
	// header, or another scheme). 401, challenge without an error code
	// (RFC 6750 §3.1).
	ErrNoToken = errors.New("no bearer token")
	// ErrTooLarge: the Authorization header or the token exceeds
	// Config.MaxTokenBytes; refused before any parsing. 400 invalid_request.
	ErrTooLarge = errors.New("token too large")
	// ErrBadRequest: the Authorization header is not `Bearer <token>` with a
	// token of RFC 6750's b64token characters. 400 invalid_request.
	ErrBadRequest = errors.New("malformed Authorization header")

	// ErrMalformed: the token is not a compact JWS with a JSON header and
	// JSON claims. 401 invalid_token.
	ErrMalformed = errors.New("malformed token")
	// ErrAlgorithm: the token's alg is not among Config.Algorithms (this
	// includes "none" and every HMAC algorithm, which are never allowed),
	// or does not fit the type of the key its kid names. 401 invalid_token.
	ErrAlgorithm = errors.New("algorithm not allowed")
	// ErrUnknownKey: no key of the issuer's key set has the token's kid,
	// even after a refresh (or a refresh was not allowed yet). 401
	// invalid_token.
	ErrUnknownKey = errors.New("unknown signing key")
	// ErrSignature: the signature does not verify with the key. 401
	// invalid_token.
	ErrSignature = errors.New("invalid signature")
	// ErrExpired: exp is in the past by more than the clock skew. 401
	// invalid_token.
	ErrExpired = errors.New("token expired")
	// ErrNotYetValid: nbf or iat is in the future by more than the clock
	// skew. 401 invalid_token.
	ErrNotYetValid = errors.New("token not yet valid")
	// ErrIssuer: iss is not the configured issuer. 401 invalid_token.
	ErrIssuer = errors.New("wrong issuer")
	// ErrAudience: aud does not contain the configured audience (a token
	// for another site). 401 invalid_token.
	ErrAudience = errors.New("wrong audience")
	// ErrClaims: a required claim (sub, exp) is missing, or a registered
	// claim has the wrong type. 401 invalid_token.
	ErrClaims = errors.New("invalid claims")

	// ErrGroups: the token is genuine and current, but its groups claim is
	// neither a list of strings nor a string (a number, an object, a list
	// with other values). Signing in again would not change it, so this is
	// 403, not 401.
	ErrGroups = errors.New("groups claim of the wrong type")

	// ErrKeysUnavailable: the issuer's keys could not be fetched and none
	// are cached (fail closed). 503: the token may be fine.
	ErrKeysUnavailable = errors.New("signing keys unavailable")
)

// Error is the error Verify and BearerToken return: Reason is one of the
// sentinels above, Detail says what is wrong in words a client or an
// operator can act on. Neither ever contains the token.
type Error struct {
	Reason error
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "identity: " + e.Reason.Error()
	}
	return "identity: " + e.Reason.Error() + ": " + e.Detail
}

// Unwrap returns Reason, so that errors.Is(err, ErrExpired) works.
func (e *Error) Unwrap() error { return e.Reason }

func fail(reason error, detail string) *Error { return &Error{Reason: reason, Detail: detail} }

// Status is the HTTP status for an error of Verify or BearerToken: 400
// (ErrTooLarge, ErrBadRequest), 403 (ErrGroups), 503 (ErrKeysUnavailable),
// 401 for every other reason and for errors that are not an *Error.
func Status(err error) int {
	switch {
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, ErrGroups):
		return http.StatusForbidden
	case errors.Is(err, ErrKeysUnavailable):
		return http.StatusServiceUnavailable
	}
	return http.StatusUnauthorized
}

// code is the RFC 6750 error code for err ("" for none).
func code(err error) string {
	switch Status(err) {
	case http.StatusBadRequest:
		return "invalid_request"
	case http.StatusUnauthorized:
		if errors.Is(err, ErrNoToken) {
			return ""
		}
		return "invalid_token"
	}
	return ""
}

// Challenge returns the value of a WWW-Authenticate header answering err:
// `Bearer`, then params (name, value pairs such as "resource_metadata",
// URL, as the MCP authorization spec wants), then error and
// error_description where RFC 6750 calls for them (not for ErrNoToken, 403
// or 503). Values are quoted; of the characters RFC 6750 does not allow
// in them, `"` becomes `'` and the others (controls, non-ASCII, `\`)
// become `?`. An odd trailing param is ignored.
func Challenge(err error, params ...string) string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	add := func(name, value string) {
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		for _, r := range value {
			switch {
			case r == '"':
				r = '\''
			case r < 0x20 || r > 0x7e || r == '\\':
				r = '?'
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		sep = ", "
	}
	for i := 0; i+1 < len(params); i += 2 {
		add(params[i], params[i+1])
	}
	if c := code(err); c != "" {
		add("error", c)
		var e *Error
		if errors.As(err, &e) {
			add("error_description", strings.TrimPrefix(e.Error(), "identity: "))
		}
	}
	return b.String()
}
