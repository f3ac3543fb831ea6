package survey

// MaxPageOffset bounds the items before a page that any list of the
// service can have: far beyond what one survey or account holds (every
// list is bounded well under 2^40 items), and small enough that an offset
// plus a page size, or a page number times one, never overflows int64.
const MaxPageOffset = 1 << 40

// PageOffset is the one decision every page-number pagination makes about
// its page parameters (contract section 3, amended: a page past the last,
// however large, answers 404 "Invalid page.", never 500): the count of
// items before page (1-based) of size items. ok is false for a page that
// is not positive, a size that is not positive, or a page whose offset
// passes MaxPageOffset: a page past the end of every list, decided
// without multiplying (page-1)*size, which overflows for a page like
// 461168601842738792.
func PageOffset(page, size int) (offset int64, ok bool) {
	if page < 1 || size < 1 {
		return 0, false
	}
	if int64(page-1) > MaxPageOffset/int64(size) {
		return 0, false
	}
	return int64(page-1) * int64(size), true
}

// PagePastEnd reports whether page (1-based) of size items lies past the
// last page of count items. Page 1 is never past the end (an empty list
// answers an empty first page), as DRF's page-number pagination answers.
func PagePastEnd(page, size int, count int64) bool {
	if page == 1 && size >= 1 {
		return false
	}
	off, ok := PageOffset(page, size)
	return !ok || off >= count
}
