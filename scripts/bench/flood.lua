-- wrk script of the bench's deep-range flood (wrk.go's flood): every
-- request asks a distinct range, as the attacker of issue 22 did: start at
-- random in 0..BENCH_POSTS, desiredPosts at random in 1..100, and a third
-- of them after a lastPost that does not exist. Each thread draws its own
-- numbers. With BENCH_FLOOD=search, every request is instead the first
-- batch of a distinct search (a word and a number at random), each a scan
-- of the posts table.

local posts = tonumber(os.getenv("BENCH_POSTS") or "100000")
local mode = os.getenv("BENCH_FLOOD") or "ranges"
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
