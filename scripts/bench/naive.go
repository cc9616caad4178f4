package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// naiveSQL is the page query the deferred join replaced: LIMIT/OFFSET over
// full rows, which makes the database read (and, for longtext, fetch
// off-page) every skipped row's content. The server no longer has it; the
// bench times it to show what the deferred join saves at deep offsets.
const naiveSQL = "SELECT p.ID, p.post_title, p.post_content, p.post_name, p.post_date FROM %sposts AS p" +
	" WHERE post_type = ? AND post_status = 'publish' ORDER BY p.post_date DESC, p.ID DESC LIMIT ? OFFSET ?"

// naivePosts runs naiveSQL on <prefix>posts, reading every row fully as the
// store would, and returns the posts' IDs in order.
func naivePosts(ctx context.Context, db *sql.DB, prefix string, offset, limit int) ([]uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // seconds at a deep offset, by design
	defer cancel()
	rows, err := db.QueryContext(ctx, fmt.Sprintf(naiveSQL, prefix), "post", limit, offset) // the server's default -post-types
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []uint64
	for rows.Next() {
		var id uint64
		var title, content, name, date string
		if err := rows.Scan(&id, &title, &content, &name, &date); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
