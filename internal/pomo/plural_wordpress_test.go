package pomo

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// localeHeaders are the Plural-Forms headers of translate.wordpress.org's
// language packs for the locales whose plural rules differ most, as
// GlotPress writes them, with GNU's spelling of a few beside them.
var localeHeaders = []string{
	"nplurals=6; plural=(n == 0) ? 0 : ((n == 1) ? 1 : ((n == 2) ? 2 : ((n % 100 >= 3 && n % 100 <= 10) ? 3 : ((n % 100 >= 11 && n % 100 <= 99) ? 4 : 5))));", // ar
	"nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;",
	"nplurals=3; plural=(n % 10 == 1 && n % 100 != 11) ? 0 : ((n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) ? 1 : 2);", // ru_RU
	"nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
	"nplurals=3; plural=(n == 1) ? 0 : ((n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) ? 1 : 2);", // pl_PL
	"nplurals=3; plural=(n == 1) ? 0 : ((n >= 2 && n <= 4) ? 1 : 2);",                                             // cs_CZ
	"nplurals=2; plural=n > 1;", // fr_FR, pt_BR
	"nplurals=2; plural=(n > 1);",
	"nplurals=1; plural=0;", // ja, zh_CN, ko_KR
	"nplurals=3; plural=(n == 1) ? 0 : ((n == 0 || n % 100 >= 2 && n % 100 <= 19) ? 1 : 2);",                                                             // ro_RO
	"nplurals=4; plural=(n % 100 == 1) ? 0 : ((n % 100 == 2) ? 1 : ((n % 100 == 3 || n % 100 == 4) ? 2 : 3));",                                           // sl_SI
	"nplurals=5; plural=(n == 1) ? 0 : ((n == 2) ? 1 : ((n >= 3 && n <= 6) ? 2 : ((n >= 7 && n <= 10) ? 3 : 4)));",                                       // ga
	"nplurals=5; plural=n==1 ? 0 : n==2 ? 1 : n<7 ? 2 : n<11 ? 3 : 4;",                                                                                   // ga, GNU
	"nplurals=3; plural=(n % 10 == 1 && (n % 100 < 11 || n % 100 > 19)) ? 0 : ((n % 10 >= 2 && n % 10 <= 9 && (n % 100 < 11 || n % 100 > 19)) ? 1 : 2);", // lt
	"nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2);",                                                        // lt, GNU
	"nplurals=3; plural=(n % 10 == 1 && n % 100 != 11) ? 0 : ((n != 0) ? 1 : 2);",                                                                        // lv
	"nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2);",                                                                                    // lv, GNU
}

// edgeHeaders are headers at the edges of WordPress's regex and parser.
var edgeHeaders = []string{
	"", "nplurals=2;plural=n!=1", "nplurals=2; plural=n!=1", "nplurals=2;  plural = n != 1 ;;;",
	" \t nplurals = 3 ;\tplural=n%3", "nplurals=2; plural=n != 1\n", "nplurals=2; plural=n != 1\r",
	"nplurals=2;\vplural=n>1", "nplurals=2;\fplural=n>1", "nplurals=2;\nplural=n>1", "nplurals=x; plural=n>1",
	"nplurals=0; plural=0", "nplurals=99999999999999999999; plural=n", "nplurals=2; plural=", "nplurals=2; plural=;",
	"nplurals=2; plural=n", "nplurals=2; plural=99999999999999999999 % n", "nplurals=2; plural=n % 0",
	"nplurals=2; plural=1 % (n > 5)", "nplurals=2; plural=n ?: 2", "nplurals=2; plural=n ? 1", "nplurals=2; plural=n 1",
	"nplurals=2; plural=== 1", "nplurals=2; plural=!= 0", "nplurals=2; plural=((n ? (1 : 0))", "nplurals=2; plural=n ? (1 : 0)",
	"nplurals=2; plural=(n == 1) == 2", "nplurals=2; plural=(n > 1) < 5", "nplurals=2; plural=(n > 1) % 2 + 1",
	"nplurals=2; plural=n>1 ? n%7 : (n<1)", "nplurals=2; plural=()", "nplurals=2; plural=(n", "nplurals=2; plural=n)",
	"nplurals=2; plural=n != 1; n", "nplurals=2; plural=n = 1", "nplurals=2; plural=n === 1", "nplurals=2; plural=n <> 1",
	"nplurals=2; plural=N != 1", "nplurals=2; plural=n ! 1", "nplurals=2; plural=n:1", "nplurals=2; plural=1 ? 2 : 3 ? 4 : 5",
	"Nplurals=2; plural=n>1", "nplurals=2; Plural=n>1", "nplurals=-1; plural=n", "nplurals=2; plural=n >= 1 ?: 0",
	"nplurals=2; plural=\xff", "nplurals=2; plural=n\x00",
}

// pluralNs are the n every expression is evaluated for.
func pluralNs() []int64 {
	ns := make([]int64, 0, 1020)
	for n := int64(0); n <= 1000; n++ {
		ns = append(ns, n)
	}
	return append(ns, 1e6, 1e6+1, math.MaxInt32, math.MaxInt32+1, 1<<32, 1<<53, 1<<53+1, math.MaxInt64, -1, -2, -11, math.MinInt64)
}

// TestPluralFormsMatchWordPress evaluates every Plural-Forms header of
// wordpress-l10n's catalogues, the locales' headers above, the edge cases
// and random well-formed and malformed expressions with ParsePluralForms
// and with WordPress's Gettext_Translations, for n from 0 to 1000 and large
// and negative n. Where WordPress would die evaluating (a modulo by zero,
// a "?" without ":", values left on the stack), Index must be -1.
func TestPluralFormsMatchWordPress(t *testing.T) {
	t.Parallel()
	needOracle(t)
	needL10n(t) // debianPluralHeaders
	if testing.Short() {
		t.Skip("-short: comparing with WordPress takes seconds")
	}
	headers := append(append(debianPluralHeaders(t), localeHeaders...), edgeHeaders...)
	rng := rand.New(rand.NewPCG(29, 1))
	for range 1500 {
		headers = append(headers, randomHeader(rng))
	}
	ns := pluralNs()
	reqs := make([]oracleRequest, len(headers))
	for i, h := range headers {
		reqs[i] = oracleRequest{Op: "plural", Header: []byte(h), Ns: decimals(ns)}
	}
	answers := askWordPress(t, reqs)
	compared, dying, dyingHeaders, fallbacks, failed := 0, 0, 0, 0, 0
	for i, h := range headers {
		a := answers[i]
		p := ParsePluralForms(h)
		if !p.parsed {
			fallbacks++
		}
		if p.Count() != a.Nplurals {
			failed++
			t.Errorf("%q: Count() = %d, WordPress %d", h, p.Count(), a.Nplurals)
		}
		if len(a.Fail) > 0 {
			dyingHeaders++
		}
		for j, n := range ns {
			compared++
			want := a.Index[j]
			if _, dies := a.Fail[strconv.Itoa(j)]; dies {
				dying++
				want = -1
			}
			if got := p.Index(n); got != want {
				failed++
				if failed <= 40 {
					t.Errorf("%q: Index(%d) = %d, WordPress %d %s", h, n, got, a.Index[j], a.Fail[strconv.Itoa(j)])
				}
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d evaluations differ from WordPress", failed, compared)
	}
	t.Logf("%d headers (%d to the default rule) × %d n = %d evaluations compared; %d of them (in %d headers) die in WordPress and are -1 here",
		len(headers), fallbacks, len(ns), compared, dying, dyingHeaders)
}

// debianPluralHeaders are the distinct Plural-Forms headers of Debian's
// catalogues, as WordPress reads them.
func debianPluralHeaders(t *testing.T) []string {
	t.Helper()
	needL10n(t)
	paths, err := filepath.Glob(filepath.Join(wordpressDir, "wp-content/languages/*.mo"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no catalogues in %s/wp-content/languages (apt-get install -y wordpress-l10n): %v", wordpressDir, err)
	}
	reqs := make([]oracleRequest, len(paths))
	for i, p := range paths {
		reqs[i] = oracleRequest{Op: "mo", Paths: []string{p}}
	}
	seen := map[string]bool{}
	for i, a := range askWordPress(t, reqs) {
		if !a.OK {
			t.Fatalf("WordPress does not load %s", paths[i])
		}
		for _, h := range a.Headers {
			if string(h[0]) == "Plural-Forms" {
				seen[string(h[1])] = true
			}
		}
	}
	var headers []string
	for h := range seen {
		headers = append(headers, h)
	}
	sort.Strings(headers)
	if len(headers) < 10 {
		t.Fatalf("only %d Plural-Forms headers in %d catalogues", len(headers), len(paths))
	}
	return headers
}

// randomHeader is a Plural-Forms header around a random expression over n,
// integers, the operators WordPress knows and parentheses, spaced at
// random; two in five are then broken by a garbage token, a deleted or a
// doubled part.
func randomHeader(rng *rand.Rand) string {
	expr := randomExpr(rng, 0)
	if rng.IntN(5) < 2 {
		expr = breakExpr(rng, expr)
	}
	sep := []string{"; ", ";", " ; ", ";\t"}[rng.IntN(4)]
	end := []string{";", "", ";;", " ;"}[rng.IntN(4)]
	return "nplurals=" + strconv.Itoa(rng.IntN(7)) + sep + "plural=" + expr + end
}

var binaryOps = []string{"%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"}

func randomExpr(rng *rand.Rand, depth int) string {
	sp := func() string { return []string{"", " ", "  ", "\t"}[rng.IntN(4)] }
	if depth > 4 || rng.IntN(6) < depth {
		switch rng.IntN(10) {
		case 0:
			return strconv.Itoa(rng.IntN(1000))
		case 1:
			return []string{"0", "00", "007", "99999999999999999999", "2147483648", "9223372036854775807"}[rng.IntN(6)]
		case 2, 3, 4:
			return strconv.Itoa(rng.IntN(12))
		default:
			return "n"
		}
	}
	switch rng.IntN(8) {
	case 0:
		return "(" + sp() + randomExpr(rng, depth+1) + sp() + ")"
	case 1, 2:
		return randomExpr(rng, depth+1) + sp() + "?" + sp() + randomExpr(rng, depth+1) + sp() + ":" + sp() + randomExpr(rng, depth+1)
	default:
		return randomExpr(rng, depth+1) + sp() + binaryOps[rng.IntN(len(binaryOps))] + sp() + randomExpr(rng, depth+1)
	}
}

var garbage = []string{"^", "-", "+", "x", "=", "!", "===", "<>", "?", ":", "(", ")", "&", "|", "n", "1", "?:", ";", "\n", "N", "%%", "=<"}

func breakExpr(rng *rand.Rand, expr string) string {
	if expr == "" {
		return garbage[rng.IntN(len(garbage))]
	}
	i := rng.IntN(len(expr))
	switch rng.IntN(4) {
	case 0:
		return expr[:i] + garbage[rng.IntN(len(garbage))] + expr[i:]
	case 1:
		return expr[:i] + expr[i+1:]
	case 2:
		j := i + rng.IntN(len(expr)-i)
		return expr[:j] + expr[i:]
	}
	return strings.Replace(expr, " ", "", -1)
}
