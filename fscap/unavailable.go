package fscap

import (
	"context"
	"errors"
	"io"
	"syscall"
)

// IsUnavailable reports whether err means that an upstream (the store,
// typically) could not be reached or did not answer in time, so that the
// same request may succeed later: a refused, reset or aborted connection,
// an unreachable host or network, a DNS failure or any other net.Error, a
// connection that closed in mid-answer (io.ErrUnexpectedEOF), or a
// timeout (context.DeadlineExceeded, ETIMEDOUT). An error in the chain
// with a method Unavailable() bool decides by itself (a store may say so
// of its server's 502, 503 and 504 answers). It is false for nil, for
// context.Canceled (the caller gave up) and for errors of content (see
// ErrContent) or of io/fs such as fs.ErrNotExist.
//
// A server maps such errors to 503 Service Unavailable and its readiness
// probe to "not ready". It does not tell which upstream failed: a lazy
// pointer whose URL cannot be reached is unavailable too (its
// Attributes.URL is set).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var u interface{ Unavailable() bool }
	if errors.As(err, &u) {
		return u.Unavailable()
	}
	if errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	for _, errno := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ETIMEDOUT, syscall.EPIPE} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne netError
	return errors.As(err, &ne)
}

// netError is net.Error's method set, declared here so that this package
// does not link package net: errors.As finds the same errors with it.
type netError interface {
	error
	Timeout() bool
	Temporary() bool
}
