-- wrk script of the wploadmore bench (wrk.go), set by environment variables
-- so wrk knows at load time whether requests go through Lua: BENCH_COOKIES,
-- "NAME=id NAME=id ...", sent round robin, and BENCH_JSON=1 (the server's
-- records) or BENCH_JSON=rest (WordPress REST's): a 2xx/3xx answer that is
-- not a non-empty JSON array of posts is a bad answer (a compressed one need
-- only start as gzip or zstd does: wrk does not decode).
-- done() prints one JSON line with wrk's full latency histogram, so rounds
-- merge exactly.

local threads, cookies = {}, {}
function setup(thread) table.insert(threads, thread) end

for c in (os.getenv("BENCH_COOKIES") or ""):gmatch("%S+") do cookies[#cookies + 1] = c end
if #cookies > 1 then
  local requests, n = {}, 0
  function request()
    if #requests == 0 then -- wrk.format needs the thread's wrk table
      for i, c in ipairs(cookies) do requests[i] = wrk.format(nil, nil, { Cookie = c }) end
    end
    n = n % #requests + 1
    return requests[n]
  end
end

bad, sample = 0, ""
local want = ({["1"] = '[{"ID":', rest = '[{"id":'})[os.getenv("BENCH_JSON") or ""]
if want then
  function response(status, headers, body)
    local start, coding = string.sub(body or "", 1, 7), headers["Content-Encoding"]
    if coding == "gzip" then
      start = string.sub(start, 1, 2) == "\31\139" and want or start
    elseif coding == "zstd" then
      start = string.sub(start, 1, 4) == "\40\181\47\253" and want or start
    end
    if status >= 200 and status < 400 and start ~= want then
      bad = bad + 1
      if sample == "" then -- no control characters: %q then quotes it as JSON would
        sample = (string.gsub(string.format("%d %s", status, string.sub(body or "", 1, 80)), "%c", " "))
      end
    end
  end
end

function done(summary, latency, requests)
  local total, first, hist, e = 0, "", {}, summary.errors
  for _, t in ipairs(threads) do
    total = total + t:get("bad")
    if first == "" then first = t:get("sample") end
  end
  for i = 1, #latency do hist[i] = string.format("[%d,%d]", latency(i)) end
  io.write(string.format('bench: {"runtime":%d,"answers":%d,"status":%d,"connect":%d,"read":%d,"write":%d,'
    .. '"timeout":%d,"bad":%d,"sample":%q,"latency":[%s]}\n', summary.duration, summary.requests, e.status,
    e.connect, e.read, e.write, e.timeout, total, first, table.concat(hist, ",")))
end
