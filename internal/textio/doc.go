// Package textio holds what the text commands of package gnu and the sed
// engine share for reading input and reporting its errors: a line
// reader bounded by HoldLimit, and the C library's strerror texts for
// the errors an fs.FS returns.
package textio
