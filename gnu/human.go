package gnu

import "strconv"

// human formats n bytes as gnulib's human_readable does for ls -h (base
// 1024, suffixes K M G T P E) and --si (base 1000, k M G ...), rounding up
// (human_ceiling): values under the base print as integers, values under
// ten units with one decimal ("1.5K", "1.0K"), larger ones as integers
// ("15K").
func human(n uint64, base uint64) string {
	suffixes := "KMGTPEZY"
	if base == 1000 {
		suffixes = "kMGTPEZY"
	}
	amt := n
	tenths, rounding := uint64(0), uint64(0)
	if base <= amt {
		exponent := 0 // gnulib's: 1 is K
		for {
			r10 := (amt%base)*10 + tenths
			r2 := (r10%base)*2 + (rounding >> 1)
			amt /= base
			tenths = r10 / base
			if r2 < base {
				rounding = b2u(r2+rounding != 0)
			} else {
				rounding = 2 + b2u(base < r2+rounding)
			}
			exponent++
			if !(base <= amt && exponent < len(suffixes)) {
				break
			}
		}
		withPoint := false
		if amt < 10 {
			if rounding > 0 {
				tenths++
				rounding = 0
				if tenths == 10 {
					amt++
					tenths = 0
				}
			}
			if amt < 10 {
				withPoint = true
			}
		}
		if !withPoint && tenths+rounding > 0 {
			amt++
			if amt == base && exponent < len(suffixes) {
				return "1.0" + suffixes[exponent:exponent+1]
			}
		}
		s := strconv.FormatUint(amt, 10)
		if withPoint {
			s += "." + strconv.FormatUint(tenths, 10)
		}
		return s + suffixes[exponent-1:exponent]
	}
	return strconv.FormatUint(amt, 10)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
