package wpsite

import "fmt"

// demoPosts are the posts of the embedded default database: a small blog
// with the kinds of content a real one has (block markup, entities,
// accents, CJK, emoji, short and empty posts, posts sharing a date) plus a
// draft and a page, which the endpoint must not show.
func demoPosts() []Post {
	p := func(date, name, title, content string) Post {
		return Post{Date: date, Status: "publish", Type: "post", Name: name, Title: title, Content: content}
	}
	para := func(text string) string {
		return "<!-- wp:paragraph -->\n<p>" + text + "</p>\n<!-- /wp:paragraph -->\n\n"
	}
	rows := []Post{
		p("2024-01-08 09:12:00", "hello-world", "Hello world!",
			para("Welcome to WordPress. This is your first post. Edit or delete it, then start writing!")),
		p("2024-01-15 18:40:21", "a-week-of-sourdough", "A week of sourdough",
			para("Day one: flour, water, patience. By day three the starter smelled like green apples &amp; yoghurt; by day five it doubled in four hours.")+
				para("The first loaf was flat. The second one had an <em>open crumb</em> I&#8217;m still proud of.")),
		p("2024-01-29 07:05:00", "morning-routine", "My morning routine, honestly",
			para("Coffee. Then more coffee. Then a walk around the block before the inbox wins.")),
		p("2024-02-03 12:00:00", "ete-a-montreal", "Été à Montréal",
			para("Les terrasses débordent, le café est crème, et les festivals s&#8217;enchaînent : jazz, humour, feux d&#8217;artifice. À Montréal, l&#8217;été est court mais très, très intense — profitez-en avant que l&#8217;hiver ne revienne, déjà en octobre.")),
		p("2024-02-14 20:14:00", "tokyo-ramen-guide", "東京ラーメンガイド",
			para("東京には数えきれないほどのラーメン屋があります。醤油、味噌、塩、豚骨——どれも個性的です。今回は新宿、渋谷、池袋で食べた十杯を紹介します。行列に並ぶ価値がある店もあれば、近所の小さな店が一番おいしいこともあります。スープの温度、麺の硬さ、チャーシューの厚さ、すべてが大切です。")),
		p("2024-02-14 20:14:00", "valentines-playlist", "A Valentine’s playlist 💘",
			para("Twelve songs, one evening, zero skips 🎶💃🕺. Side A is slow; side B is not.")),
		p("2024-03-01 10:30:00", "spring-garden-plan", "Planning the spring garden",
			"<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">What goes where</h2>\n<!-- /wp:heading -->\n\n"+
				"<!-- wp:list -->\n<ul><li>Tomatoes &amp; basil by the south wall</li><li>Beans on the fence</li><li>Lettuce in the shade</li></ul>\n<!-- /wp:list -->\n\n"+
				para("Compost went in last weekend. The soil temperature is finally above 10&nbsp;°C.")),
		p("2024-03-12 16:45:09", "reading-list-q1", "Reading list, Q1",
			para("<strong>Finished:</strong> three novels, one book on typography, and half of a very long biography.")+
				para("<a href=\"https://example.com/books\">The full list is here</a> &#8212; with notes.")),
		p("2024-03-27 08:00:00", "bike-commute", "Thirty days of bike commuting",
			para("Rain on day two, a flat tyre on day nine, and by day thirty I no longer wanted the bus.")),
		p("2024-04-09 13:22:00", "short-note", "Short note", para("Back next week.")),
		p("2024-04-18 19:00:00", "kitchen-renovation", "The kitchen, before & after",
			"<!-- wp:image {\"id\":42} -->\n<figure class=\"wp-block-image\"><img src=\"kitchen.jpg\" alt=\"The new kitchen\"/></figure>\n<!-- /wp:image -->\n\n"+
				para("Six weeks, two plumbers, one very patient neighbour. The cabinets are oak; the worktop is a single slab of reclaimed marble.")),
		p("2024-05-02 11:11:11", "code-snippets", "Three shell one-liners I use daily",
			"<!-- wp:code -->\n<pre class=\"wp-block-code\"><code>grep -rn &quot;TODO&quot; . | wc -l</code></pre>\n<!-- /wp:code -->\n\n"+
				para("The first counts the TODOs; the other two are below. Note the quotes: &lt;code&gt; blocks keep them escaped.")),
		p("2024-05-20 06:30:00", "photo-walk-lisbon", "Photo walk: Lisbon",
			para("Trams, tiles and light. Alfama at sunrise, Belém at noon, and pastéis de nata in between — the azulejos glow at every hour.")),
		p("2024-06-07 17:00:00", "podcast-episode-12", "Podcast episode 12: Slow software",
			para("We talk about software that lasts, why boring technology wins, and what a load-more button should do.")),
		p("2024-06-21 21:21:00", "midsummer", "Midsummer 🌞",
			para("The longest day. Strawberries, a lake, and nobody looked at a screen 🍓🛶.")),
		p("2024-07-04 09:45:00", "empty-post", "An untitled thought", ""),
		p("2024-07-19 14:10:00", "greek-islands", "Ιστορίες από τα νησιά",
			para("Καλημέρα από τη Νάξο! Ο ήλιος, η θάλασσα και το φαγητό είναι υπέροχα. Αύριο πάμε στην Πάρο με το πρωινό πλοίο.")),
		p("2024-08-02 10:00:00", "year-in-numbers", "Half a year in numbers",
			para("212 loaves of bread, 1,480 km by bike, 37 books, 0 regrets.")),
		p("2024-08-30 15:30:00", "css-tip", "A small CSS tip",
			para("Use <code>text-wrap: balance</code> for headings &amp; <code>pretty</code> for paragraphs; your titles will thank you.")),
		p("2024-09-15 08:08:08", "autumn-plans", "Autumn plans",
			para("Apples to pick, jam to make, a marathon to (maybe) run. More soon.")),
		{Date: "2024-10-01 09:00:00", Status: "draft", Type: "post", Title: "Draft: not ready", Content: para("This draft is not published.")},
		{Date: "2024-01-08 09:12:00", Status: "publish", Type: "page", Name: "sample-page", Title: "Sample Page", Content: para("This is an example page.")},
	}
	for i := range rows {
		r := &rows[i]
		r.ID = uint64(i + 1)
		r.Author, r.CommentStatus = 1, "open"
		r.DateGMT, r.Modified = r.Date, r.Date
		r.GUID = fmt.Sprintf("http://localhost/?p=%d", r.ID)
	}
	return rows
}
