package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The floods aimed at searches, each measured in turns with its twin, and
// the mixed flood of every kind, measured for the server's memory.
const (
	keptFloodName        = "visitors during a flood of one kept search, 64 conns"
	keptArchiveFloodName = "archive readers during a flood of one kept search, 64 conns"
	walksFloodName       = "archive readers during deep walks inside a kept ranking, 64 conns"
	searchArchiveName    = "archive readers during a distinct-search flood, 64 conns"
	mixedFloodName       = "visitors during a mixed flood of every kind, 60 s, 64 conns"
	// The kept search's floor: the same answer from memory, 10 posts of
	// JSON with no session to update, cut from an archive's head rather
	// than from a search's ranking.
	keptFloorName = "visitors during a flood of an archive's first 10 posts, 64 conns"
)

// mixedDuration is the mixed flood's run time, long enough for every
// bound's budget to fill: the rankings, the pages kept, the sessions.
const mixedDuration = 60 * time.Second

// memoryBudgetMB is the sum of the budgets docs/abuse.md ("Memory") lists
// at the defaults, in MiB as the RSS figures are, for the bench's 96
// connections: what the server takes idle (25), the renders' (16, and one
// page of -max-page-posts, 200 posts at 16 KiB), the rendered pages (8),
// the excerpts (8), the formatted posts, -cache-bytes and -search-bytes
// (16 each), -unsent-bytes (32), and 45 KiB a connection.
const memoryBudgetMB = 25 + 16 + 200*16.0/1024 + 8 + 8 + 3*16 + 32 + 96*45.0/1024

// searchFloodRows are the rows of the floods aimed at searches: visitors
// reading the blog's first page (json0) or an archive's (archive) while
// 64 connections ask one kept search over and over, walk deep inside its
// kept ranking, or ask distinct searches; then the mixed flood.
func searchFloodRows(c, posts int, visitors []string, json0, archive string) []scenario {
	keep := keepRanking(fmt.Sprintf("/load-more.php?start=0&desiredPosts=10&s=%s", searchWord))
	// A scan of a large site takes longer than the default -query-timeout
	// (5 s): the kept ranking needs one to finish, as the search rows do.
	long := []string{"-query-timeout", "60s"}
	env := func(mode string) []string {
		return []string{"BENCH_FLOOD=" + mode, "BENCH_SEARCH=" + searchWord, "BENCH_CATEGORIES=" + strings.Join(floodCategories, " ")}
	}
	return []scenario{
		{name: keptFloodName, path: json0, cookies: visitors, conns: c, flood: floodConns, floodPosts: posts,
			floodEnv: env("kept"), twin: healthzTwin, before: keep, flags: long},
		{name: keptFloorName, path: json0, cookies: visitors, conns: c, flood: floodConns,
			floodPath: "/load-more.php?start=0&desiredPosts=10&" + denseArchive, twin: healthzTwin, flags: long},
		{name: keptArchiveFloodName, path: archive, conns: c, flood: floodConns, floodPosts: posts,
			floodEnv: env("kept"), twin: healthzTwin, before: keep, flags: long},
		{name: walksFloodName, path: archive, conns: c, flood: floodConns, floodPosts: posts,
			floodEnv: env("walks"), twin: healthzTwin, before: keep, flags: long},
		{name: searchArchiveName, path: archive, conns: c, flood: floodConns, floodPosts: posts,
			floodEnv: env("search"), twin: healthzTwin},
		// On a server of its own, so that its RSS peak is this flood's.
		{name: mixedFloodName, path: json0, cookies: visitors, conns: c, flood: floodConns, floodPosts: posts,
			floodEnv: env("mixed"), before: keep, fresh: true, duration: mixedDuration, flags: long},
	}
}

// mixedTargets holds the mixed flood's RSS peak to the documented budgets'
// sum.
func mixedTargets(row func(string) result) []target {
	r := row(mixedFloodName)
	return []target{newTarget(mixedFloodName+": server RSS peak", measured(r.RSSPeakMB, r.RSSPeakMB > 0), memoryBudgetMB, true, "MB",
		"VmHWM of its own server, against the budgets' sum in docs/abuse.md: "+strconv.FormatFloat(memoryBudgetMB, 'f', 0, 64)+" MB")}
}
