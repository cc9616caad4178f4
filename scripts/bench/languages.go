package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// debianLanguages is where Debian's wordpress-l10n package installs
// WordPress's catalogues: the language rows show the seeded site in
// German with its de_DE.mo, as a German site's language pack would.
const debianLanguages = "/usr/share/wordpress/wp-content/languages"

// The language rows: the warm JSON answer and the page of the same site in
// English and in German, each pair one after the other, so that their
// ratio is measured side by side. Every request shows the language, so
// what a language may cost is in these rows or nowhere.
func languageName(kind, locale string) string { return kind + ", -locale " + locale }

const (
	langJSON = "JSON start=0"
	langPage = "page, posts_start=2"
)

// languageScenarios returns the language rows for conns connections of
// visitors (the JSON rows) and pagers (the page rows): each English row
// runs versus its German one, on two servers taking turns (see
// runVersus). It returns an error when Debian's German catalogue is
// missing.
func languageScenarios(visitors, pagers []string, conns int) ([]scenario, error) {
	mo := filepath.Join(debianLanguages, "de_DE.mo")
	if _, err := os.Stat(mo); err != nil {
		return nil, fmt.Errorf("the language rows read %s: install Debian's wordpress-l10n (apt-get install wordpress-l10n): %w", mo, err)
	}
	var table []scenario
	for _, kind := range []struct {
		name, path string
		cookies    []string
	}{{langJSON, fmt.Sprintf("/load-more.php?start=0&desiredPosts=%d", desiredPosts), visitors}, {langPage, "/load-more.php", pagers}} {
		sc := func(locale string) scenario {
			return scenario{name: languageName(kind.name, locale), path: kind.path, cookies: kind.cookies, conns: conns,
				flags: []string{"-locale", locale, "-wp-languages", debianLanguages}}
		}
		german := sc("de_DE")
		english := sc("en_US")
		english.versus = &german
		table = append(table, english)
	}
	return table, nil
}

// runVersus runs sc on srv and sc.versus on a server of its own, in
// limitRounds rounds taking turns, so that a neighbour's burst on this
// shared machine weighs on both alike, and returns both rows.
func (b *bench) runVersus(ctx context.Context, srv *serverProcess, sc scenario) (_ []result, err error) {
	vs := *sc.versus
	other, stop, err := b.startVersus(ctx, vs)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, stop()) }()
	if vs.requests == 0 { // a scan cut off by wrk's end would run on
		if _, err := b.wrk.run(ctx, other, vs, 2*time.Second); err != nil {
			return nil, err
		}
	}
	d := max((cmp.Or(sc.duration, b.o.duration) / limitRounds).Round(time.Second), time.Second)
	mine, theirs := &result{}, &result{}
	for range limitRounds {
		for _, run := range []struct {
			srv *serverProcess
			sc  scenario
			r   *result
		}{{srv, sc, mine}, {other, vs, theirs}} {
			m, err := b.measureAfter(ctx, run.srv, run.sc, d)
			if err != nil {
				return nil, err
			}
			run.r.add(m)
		}
	}
	return []result{mine.finish(sc.name, sc.conns), theirs.finish(vs.name, vs.conns)}, nil
}

// startVersus starts the server vs runs on: WordPress when vs.wordpress,
// checked to answer vs's path with a page of posts, else this server
// with vs's flags. stop stops it.
func (b *bench) startVersus(ctx context.Context, vs scenario) (srv *serverProcess, stop func() error, err error) {
	if !vs.wordpress {
		srv, err = startServer(ctx, b.serverBin, filepath.Join(b.dir, "server-versus.log"), append(slices.Clip(b.serverArgs), vs.flags...))
		if err != nil {
			return nil, nil, err
		}
		return srv, srv.stop, nil
	}
	wp, err := startWordPress(ctx, filepath.Join(b.dir, "wordpress"), b.dbCfg)
	if err != nil {
		return nil, nil, err
	}
	if err := wp.checkREST(ctx, vs.path, searchBatch); err != nil {
		return nil, nil, errors.Join(err, wp.stop())
	}
	return wp.process(), wp.stop, nil
}

// languageTargets holds the German rows to the English ones' rate.
func languageTargets(row func(string) result) []target {
	var out []target
	for _, kind := range []string{langJSON, langPage} {
		en, de := row(languageName(kind, "en_US")), row(languageName(kind, "de_DE"))
		out = append(out, newTarget(fmt.Sprintf("%s: de_DE vs en_US", kind), de.RPS/en.RPS, 0.95, false, "%",
			fmt.Sprintf("%.0f vs %.0f req/s", de.RPS, en.RPS)))
	}
	return out
}
