-- wrk script of the wploadmore bench (scripts/bench/wrk.go), configured by
-- environment variables so wrk can tell at load time whether requests are
-- dynamic (a global request function makes every request go through Lua):
--   BENCH_COOKIES  session cookies ("NAME=id NAME=id ..."): with two or
--                  more, each thread sends them round robin; one goes in a
--                  plain -H header instead, none means a new session per
--                  request.
--   BENCH_JSON     "1": an answer with a 2xx/3xx status must be a non-empty
--                  JSON array of posts, else it counts as a bad answer (wrk
--                  counts other statuses itself).
-- done() prints the bad answers and the full latency histogram (µs, count),
-- so the bench can merge rounds exactly instead of averaging percentiles.
-- That histogram holds wrk's coordinated-omission correction (samples wrk
-- adds for answers slower than twice the mean interval); the summary line
-- lets the bench take them out again.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local cookies = {}
for c in (os.getenv("BENCH_COOKIES") or ""):gmatch("%S+") do
  cookies[#cookies + 1] = c
end

if #cookies > 1 then
  local requests, n = nil, 0
  function request()
    if requests == nil then
      requests = {}
      for i, c in ipairs(cookies) do
        requests[i] = wrk.format(nil, nil, { Cookie = c })
      end
    end
    n = n % #requests + 1
    return requests[n]
  end
end

bad = 0
sample = ""

if os.getenv("BENCH_JSON") == "1" then
  function response(status, headers, body)
    if status >= 200 and status < 400 and string.sub(body or "", 1, 7) ~= '[{"ID":' then
      bad = bad + 1
      if sample == "" then
        -- One line for the bench's parser: control characters as spaces.
        sample = string.format("%d %s", status, (string.gsub(string.sub(body or "", 1, 80), "%c", " ")))
      end
    end
  end
end

function done(summary, latency, requests)
  local total, first = 0, ""
  for _, t in ipairs(threads) do
    total = total + t:get("bad")
    local s = t:get("sample")
    if first == "" and s ~= "" then
      first = s
    end
  end
  -- wrk's run time and answers: with its connections they give the
  -- interval of wrk's coordinated-omission correction, which the bench
  -- undoes to get the latencies as measured.
  io.write(string.format("bench: summary %d %d\n", summary.duration, summary.requests))
  io.write(string.format("bench: bad answers %d %s\n", total, first))
  for i = 1, #latency do
    local us, count = latency(i)
    io.write(string.format("bench: latency %d %d\n", us, count))
  end
end
