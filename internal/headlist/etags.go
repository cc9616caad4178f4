package headlist

// maxETagBytes and maxETagElements bound If-None-Match and If-Match.
// net/http takes headers of up to 64 KB, which the client fills as it
// likes; a browser sends one tag and a cache a few, one for each
// representation it keeps. A tag past the bounds is not seen, so the
// answer is the whole body rather than a 304.
const (
	maxETagBytes    = 2 << 10
	maxETagElements = 32
)

// ETags is the part of an If-None-Match or If-Match the server reads: the
// first maxETagElements tags within maxETagBytes, so that a long list
// costs no more than a short one.
func ETags(value string) string {
	return Head(value, ',', maxETagBytes, maxETagElements)
}
