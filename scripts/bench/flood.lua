-- wrk script of the bench's floods (wrk.go's startFlood), by BENCH_FLOOD:
--   ranges (the default): every request asks a distinct range, as the
--   attacker of issue 22 did: start at random in 0..BENCH_POSTS,
--   desiredPosts at random in 1..100, and a third of them after a lastPost
--   that does not exist;
--   pages: archive pages of distinct length, posts=100..200 of one of the
--   categories in BENCH_CATEGORIES ("slug slug ..."), so that no page is
--   one rendered before;
--   search: the first batch of a distinct search (a word and a number at
--   random), each a scan of the posts table;
--   kept: the first batch of one search, BENCH_SEARCH, over and over: its
--   ranking is kept, so every answer is cut from memory;
--   walks: pages of BENCH_SEARCH at random depths in its kept ranking
--   (start at random in 0..BENCH_POSTS/2, desiredPosts 1..100, a third of
--   them after a lastPost at random), each a page read by primary key;
--   renders: the blog's page at a posts_start of its own (posts=1..1000),
--   each a render;
--   mixed: each request one of the above or ranges at random.
-- Each thread draws its own numbers.

local posts = tonumber(os.getenv("BENCH_POSTS") or "100000")
local mode = os.getenv("BENCH_FLOOD") or "ranges"
local categories = {}
for c in (os.getenv("BENCH_CATEGORIES") or ""):gmatch("%S+") do categories[#categories + 1] = c end
local search = os.getenv("BENCH_SEARCH") or "garden"
local modes = {"ranges", "pages", "search", "kept", "walks", "renders"}
local words = {"post", "news", "recipe", "travel", "garden", "city", "music", "the", "a", "quick"}
local n = 0

function setup(thread)
  n = n + 1
  thread:set("seed", n)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
end

local function ranges()
  local path = string.format("/load-more.php?start=%d&desiredPosts=%d", math.random(0, posts), math.random(1, 100))
  if math.random(3) == 1 then
    path = path .. string.format("&lastPost=%d", math.random(1000000000, 2000000000))
  end
  return path
end

local paths = {
  ranges = ranges,
  pages = function()
    return string.format("/load-more.php?category_name=%s&posts=%d", categories[math.random(#categories)], math.random(100, 200))
  end,
  search = function()
    return string.format("/load-more.php?start=0&desiredPosts=2&s=%s+%d", words[math.random(#words)], math.random(0, 1000000000))
  end,
  kept = function()
    return string.format("/load-more.php?start=0&desiredPosts=10&s=%s", search)
  end,
  walks = function()
    local path = string.format("/load-more.php?start=%d&desiredPosts=%d&s=%s", math.random(0, math.floor(posts / 2)), math.random(1, 100), search)
    if math.random(3) == 1 then
      path = path .. string.format("&lastPost=%d", math.random(1, posts * 4))
    end
    return path
  end,
  renders = function()
    return string.format("/load-more.php?posts=%d", math.random(1, 1000))
  end,
}

function request()
  local m = mode
  if m == "mixed" then m = modes[math.random(#modes)] end
  return wrk.format("GET", (paths[m] or ranges)())
end
