package wpsite

import (
	"fmt"
	"slices"
	"strings"
)

// site is what [Demo] writes: every table's rows.
type site struct {
	posts         []Post
	terms         []Term
	relationships []TermRelationship
	users         []User
	options       map[string]string
}

// demoTerms are the demo's categories and tags, term_taxonomy_id equal to
// term_id as on most sites. Baking is a child of Food & Drink, so that
// category_name=food-drink lists both, as WordPress does.
var demoTerms = []Term{
	{ID: 1, Name: "Uncategorized", Slug: "uncategorized", Taxonomy: "category"},
	{ID: 2, Name: "News", Slug: "news", Taxonomy: "category", Description: "What is new on the blog."},
	{ID: 3, Name: "Food &amp; Drink", Slug: "food-drink", Taxonomy: "category"},
	{ID: 4, Name: "Baking", Slug: "baking", Taxonomy: "category", Parent: 3},
	{ID: 5, Name: "Travel", Slug: "travel", Taxonomy: "category"},
	{ID: 6, Name: "Garden", Slug: "garden", Taxonomy: "category"},
	{ID: 7, Name: "summer", Slug: "summer", Taxonomy: "post_tag"},
	{ID: 8, Name: "recipes", Slug: "recipes", Taxonomy: "post_tag"},
	{ID: 9, Name: "bikes", Slug: "bikes", Taxonomy: "post_tag"},
	{ID: 10, Name: "Montréal", Slug: "montreal", Taxonomy: "post_tag"},
	{ID: 11, Name: "software", Slug: "software", Taxonomy: "post_tag"},
}

// isCategory says whether the demo's term id is a category.
func isCategory(id uint64) bool {
	i := slices.IndexFunc(demoTerms, func(t Term) bool { return t.ID == id })
	return i >= 0 && demoTerms[i].Taxonomy == "category"
}

// demoUsers are the demo's three authors; user_nicename is the slug of
// author_name=, display_name what an author archive is headed with.
var demoUsers = []User{
	{ID: 1, Login: "maya", Nicename: "maya", Email: "maya@example.com", Registered: "2022-01-08 09:00:00", DisplayName: "Maya Okafor"},
	{ID: 2, Login: "jonas", Nicename: "jonas-berg", Email: "jonas@example.com", Registered: "2022-01-09 10:00:00", DisplayName: "Jonas Berg"},
	{ID: 3, Login: "lea.marchand", Nicename: "lea-marchand", Email: "lea@example.com", Registered: "2022-01-09 11:00:00", DisplayName: "Léa Marchand"},
}

// The demo's authors and terms, by ID.
const (
	maya, jonas, lea                                       = 1, 2, 3
	uncategorized, news, foodDrink, baking, travel, garden = 1, 2, 3, 4, 5, 6
	summer, recipes, bikes, montreal, software             = 7, 8, 9, 10, 11
)

// demoPost is a post of the demo with the terms it is filed under, by
// term_id.
type demoPost struct {
	Post
	terms []uint64
}

// demoSite is the embedded default site: a small blog over four years
// with the kinds of content a real one has (block markup, entities,
// accents, CJK, emoji, short and empty posts, two posts sharing a date, a
// sticky post, a password-protected one), three authors, categories and
// tags, three pages and a draft, which the endpoint must not show. It has
// no home option, so no links: there is no WordPress behind it to open
// them, nor uploads for a featured image.
func demoSite() site {
	s := site{
		terms: slices.Clone(demoTerms), users: demoUsers,
		options: map[string]string{
			"default_category": "1",
			"sticky_posts":     "a:1:{i:0;i:3;}", // Start here
		},
	}
	counts := map[uint64]int64{}
	for i, d := range demoPosts {
		p := d.Post
		p.ID = uint64(i + 1)
		p.CommentStatus = "open"
		p.DateGMT, p.Modified = p.Date, p.Date
		p.GUID = fmt.Sprintf("http://localhost/?p=%d", p.ID)
		terms := d.terms
		if p.Type == "post" && !slices.ContainsFunc(terms, isCategory) {
			terms = append(slices.Clone(terms), uncategorized) // WordPress files a post in the default category
		}
		for _, term := range terms {
			s.relationships = append(s.relationships, TermRelationship{ObjectID: p.ID, TermTaxonomyID: term})
			if p.Status == "publish" {
				counts[term]++
			}
		}
		s.posts = append(s.posts, p)
	}
	for i := range s.terms {
		s.terms[i].Count = counts[s.terms[i].ID]
	}
	return s
}

// para is a paragraph block as the block editor saves it.
func para(text string) string {
	return "<!-- wp:paragraph -->\n<p>" + text + "</p>\n<!-- /wp:paragraph -->\n\n"
}

// list is a list block.
func list(items ...string) string {
	return "<!-- wp:list -->\n<ul><li>" + strings.Join(items, "</li><li>") + "</li></ul>\n<!-- /wp:list -->\n\n"
}

// post is a published post of the demo.
func post(date string, author uint64, name, title, content string, terms ...uint64) demoPost {
	return demoPost{Post: Post{Date: date, Author: author, Status: "publish", Type: "post", Name: name, Title: title, Content: content}, terms: terms}
}

// page is a published page of the demo.
func page(date string, author uint64, name, title, content string) demoPost {
	return demoPost{Post: Post{Date: date, Author: author, Status: "publish", Type: "page", Name: name, Title: title, Content: content}}
}

// protected is p with a password.
func (p demoPost) protected(password string) demoPost {
	p.Password = password
	return p
}

// demoPosts are the demo's rows in ID order, which is date order but for
// the draft, as on a site whose posts were written in turn: a data table.
var demoPosts = []demoPost{
	post("2022-01-08 09:12:00", maya, "hello-world", "Hello world!",
		para("Welcome to WordPress. This is your first post. Edit or delete it, then start writing!"), news),
	page("2022-01-08 09:12:00", maya, "sample-page", "Sample Page", para("This is an example page.")),
	post("2022-01-10 08:00:00", maya, "start-here", "Start here",
		para("New here? We write about bread, bikes, gardens and the places we go. The sourdough week, the Lisbon photo walk and the spring garden plan are good places to begin."), news),
	post("2022-05-02 11:11:11", jonas, "code-snippets", "Three shell one-liners I use daily",
		"<!-- wp:code -->\n<pre class=\"wp-block-code\"><code>grep -rn &quot;TODO&quot; . | wc -l</code></pre>\n<!-- /wp:code -->\n\n"+
			para("The first counts the TODOs; the other two are below. Note the quotes: &lt;code&gt; blocks keep them escaped."), software),
	post("2022-06-07 17:00:00", maya, "podcast-episode-12", "Podcast episode 12: Slow software",
		para("We talk about software that lasts, why boring technology wins, and what a load-more button should do."), news, software),
	post("2022-07-19 14:10:00", lea, "greek-islands", "Ιστορίες από τα νησιά",
		para("Καλημέρα από τη Νάξο! Ο ήλιος, η θάλασσα και το φαγητό είναι υπέροχα. Αύριο πάμε στην Πάρο με το πρωινό πλοίο."), travel, summer),
	post("2022-11-05 16:00:00", lea, "apple-pie", "Apple pie, step by step",
		para("The best apple pie starts with cold butter and sharp apples: six Bramleys, a little sugar, a lot of cinnamon.")+
			list("Chill the dough for an hour", "Slice the apples thin", "Bake at 200&nbsp;°C for 45 minutes")+
			para("Serve it warm, with cream or &#8212; controversially &#8212; cheddar."), baking, recipes),
	post("2023-01-15 18:40:21", lea, "a-week-of-sourdough", "A week of sourdough",
		para("Day one: flour, water, patience. By day three the starter smelled like green apples &amp; yoghurt; by day five it doubled in four hours.")+
			para("The first loaf was flat. The second one had an <em>open crumb</em> I&#8217;m still proud of."), baking, recipes),
	post("2023-01-29 07:05:00", jonas, "morning-routine", "My morning routine, honestly",
		para("Coffee. Then more coffee. Then a walk around the block before the inbox wins.")),
	post("2023-02-14 20:14:00", jonas, "tokyo-ramen-guide", "東京ラーメンガイド",
		para("東京には数えきれないほどのラーメン屋があります。醤油、味噌、塩、豚骨——どれも個性的です。今回は新宿、渋谷、池袋で食べた十杯を紹介します。行列に並ぶ価値がある店もあれば、近所の小さな店が一番おいしいこともあります。スープの温度、麺の硬さ、チャーシューの厚さ、すべてが大切です。"),
		foodDrink, travel),
	post("2023-02-14 20:14:00", maya, "valentines-playlist", "A Valentine’s playlist 💘",
		para("Twelve songs, one evening, zero skips 🎶💃🕺. Side A is slow; side B is not.")),
	post("2023-03-01 10:30:00", jonas, "spring-garden-plan", "Planning the spring garden",
		"<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">What goes where</h2>\n<!-- /wp:heading -->\n\n"+
			list("Tomatoes &amp; basil by the south wall", "Beans on the fence", "Lettuce in the shade")+
			para("Compost went in last weekend. The soil temperature is finally above 10&nbsp;°C."), garden),
	post("2023-03-12 16:45:09", maya, "reading-list-q1", "Reading list, Q1",
		para("<strong>Finished:</strong> three novels, one book on typography, and half of a very long biography.")+
			para("<a href=\"https://example.com/books\">The full list is here</a> &#8212; with notes.")),
	post("2023-07-03 12:00:00", lea, "ete-a-montreal", "Été à Montréal",
		para("Les terrasses débordent, le café est crème, et les festivals s&#8217;enchaînent : jazz, humour, feux d&#8217;artifice. À Montréal, l&#8217;été est court mais très, très intense — profitez-en avant que l&#8217;hiver ne revienne, déjà en octobre."),
		travel, summer, montreal),
	page("2023-09-10 10:00:00", maya, "about", "About",
		para("Three friends writing about bread, bikes, gardens and the places we go: Maya keeps the news, Jonas the garden and the code, Léa the kitchen and the suitcase.")),
	post("2023-11-12 19:30:00", lea, "secret-recipe", "Grandma’s secret recipe",
		para("Brown the butter first, and add a pinch of cardamom to the dough. Now you know."), baking, recipes).protected("cardamom"),
	page("2024-02-01 09:00:00", lea, "recipes", "Recipes",
		para("Every recipe on this blog in one place: the apple pie, the sourdough, and the ramen we still dream about.")),
	post("2024-03-27 08:00:00", jonas, "bike-commute", "Thirty days of bike commuting",
		para("Rain on day two, a flat tyre on day nine, and by day thirty I no longer wanted the bus."), bikes),
	post("2024-04-09 13:22:00", maya, "short-note", "Short note", para("Back next week.")),
	post("2024-04-18 19:00:00", lea, "kitchen-renovation", "The kitchen, before & after",
		"<!-- wp:image {\"id\":42} -->\n<figure class=\"wp-block-image\"><img src=\"kitchen.jpg\" alt=\"The new kitchen\"/></figure>\n<!-- /wp:image -->\n\n"+
			para("Six weeks, two plumbers, one very patient neighbour. The cabinets are oak; the worktop is a single slab of reclaimed marble."), foodDrink),
	post("2024-05-20 06:30:00", lea, "photo-walk-lisbon", "Photo walk: Lisbon",
		para("Trams, tiles and light. Alfama at sunrise, Belém at noon, and pastéis de nata in between — the azulejos glow at every hour."), travel),
	post("2024-07-04 09:45:00", maya, "empty-post", "An untitled thought", ""),
	post("2024-08-02 10:00:00", maya, "year-in-numbers", "Half a year in numbers",
		para("212 loaves of bread, 1,480 km by bike, 37 books, 0 regrets."), news, bikes),
	post("2025-01-08 09:00:00", maya, "a-new-look", "A new look for the new year",
		para("New year, new theme: bigger type, fewer colours, and a search box that finds what you meant. Tell us what you think!"), news),
	post("2025-06-21 21:21:00", lea, "midsummer", "Midsummer 🌞",
		para("The longest day. Strawberries, a lake, and nobody looked at a screen 🍓🛶."), travel, summer),
	post("2025-08-30 15:30:00", jonas, "css-tip", "A small CSS tip",
		para("Use <code>text-wrap: balance</code> for headings &amp; <code>pretty</code> for paragraphs; your titles will thank you."), software),
	post("2025-09-15 08:08:08", jonas, "autumn-plans", "Autumn plans",
		para("Apples to pick, jam to make, a marathon to (maybe) run. More soon."), garden),
	{Post: Post{Date: "2025-10-01 09:00:00", Author: maya, Status: "draft", Type: "post", Title: "Draft: not ready", Content: para("This draft is not published.")}},
}
