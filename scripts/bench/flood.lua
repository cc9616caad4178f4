-- wrk script of the bench's floods (wrk.go's startFlood), by BENCH_FLOOD:
--   ranges (the default): every request asks a distinct range, as the
--   attacker of issue 22 did: start at random in 0..BENCH_POSTS,
--   desiredPosts at random in 1..100, and a third of them after a lastPost
--   that does not exist;
--   pages: archive pages of distinct length, posts=100..200 of one of the
--   categories in BENCH_CATEGORIES ("slug slug ..."), so that no page is
--   one rendered before;
--   search: the first batch of a distinct search (a word and a number at
--   random), each a scan of the posts table.
-- Each thread draws its own numbers.

local posts = tonumber(os.getenv("BENCH_POSTS") or "100000")
local mode = os.getenv("BENCH_FLOOD") or "ranges"
local categories = {}
for c in (os.getenv("BENCH_CATEGORIES") or ""):gmatch("%S+") do categories[#categories + 1] = c end
local words = {"post", "news", "recipe", "travel", "garden", "city", "music", "the", "a", "quick"}
local n = 0

function setup(thread)
  n = n + 1
  thread:set("seed", n)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
end

function request()
  if mode == "pages" then
    return wrk.format("GET", string.format("/load-more.php?category_name=%s&posts=%d",
      categories[math.random(#categories)], math.random(100, 200)))
  end
  if mode == "search" then
    return wrk.format("GET", string.format("/load-more.php?start=0&desiredPosts=2&s=%s+%d",
      words[math.random(#words)], math.random(0, 1000000000)))
  end
  local path = string.format("/load-more.php?start=%d&desiredPosts=%d", math.random(0, posts), math.random(1, 100))
  if math.random(3) == 1 then
    path = path .. string.format("&lastPost=%d", math.random(1000000000, 2000000000))
  end
  return wrk.format("GET", path)
end
