-- update.lua adds n to the session's posts_start inside Redis, in one
-- atomic step, editing the PHP-serialized value in place. It is the fast
-- path of Store.Visit; the Go codec stays the
-- authority: whenever this script is not certain to write exactly what
-- Decode → Int/SetInt → Encode would, it writes nothing and answers
-- "fallback", and Go redoes the update on its WATCH path. FuzzScript holds
-- the two to the same bytes.
--
-- KEYS[1]  the session key, <prefix><id>
-- KEYS[2]  only with Config.Locking: phpredis's lock key, KEYS[1] .. "_LOCK"
--          (one key plus its lock: in Redis Cluster a script must keep to
--          one key's node, so never add a key here; a cluster gets KEYS[1]
--          alone, as phpredis's cluster handler takes no lock and
--          <key>_LOCK hashes to another slot: see cluster.go)
-- ARGV[1]  session.serialize_handler: "php" or "php_serialize"
-- ARGV[2]  n, the increment: a decimal int64, at least 0
-- ARGV[3]  InitialPostsStart, a decimal int64
-- ARGV[4]  gc_maxlifetime in whole seconds, as SETEX takes it
-- ARGV[5]  the largest value the script edits, in bytes (scriptMaxBytes)
--
-- Answers (a Redis array):
--   {"ok", "<posts_start>"}    written (or, for an unchanged value, EXPIREd)
--   {"nosession"}              no such key; nothing written
--   {"locked"}                 another request holds the lock; nothing written
--   {"fallback", "malformed"}  Decode rejects the value for certain
--   {"fallback", "uncertain"}  the value may be fine, but only Go can tell
--   {"fallback", "wrongtype"}  the key holds no string
--   {"fallback", "large"}      the value is over ARGV[5] bytes; it was not read
--
-- Commands it runs inside Redis: EXISTS on the lock key, STRLEN, GET, then
-- one of SETEX or EXPIRE on the session key. Never SET, EVAL, EVALSHA or WATCH,
-- which the client sends itself, so that INFO commandstats counts client
-- round trips as evalsha + eval + set + 2 × watch.

local skey = KEYS[1]
local format, n, initial, ttl, maxbytes = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])

if #KEYS == 2 and redis.call("EXISTS", KEYS[2]) == 1 then
  return {"locked"}
end
-- The walk below costs in proportion to the value, and Redis serves nobody
-- else while a script runs: a large value goes to Go, which costs Redis
-- only the sending and receiving of its bytes.
local size = redis.pcall("STRLEN", skey)
if type(size) == "table" and size.err then
  return {"fallback", "wrongtype"}
end
if size > maxbytes then
  return {"fallback", "large"}
end
local b = redis.call("GET", skey)
if not b then
  return {"nosession"}
end

local MALFORMED, UNCERTAIN = {}, {}
local len = #b
local pos = 1 -- the next byte to read
local byte, sub, find = string.byte, string.sub, string.find
local MAXDEPTH = 4096 -- PHP's unserialize_max_depth, as in codec.go
local INT64MAX = "9223372036854775807"

local function bad() error(MALFORMED, 0) end

-- above reports whether the digit string x is greater than y, both of one
-- length, byte by byte: Lua's < on strings follows strcoll, and Redis sets
-- LC_COLLATE from its environment.
local function above(x, y)
  for i = 1, #x do
    local a, c = byte(x, i), byte(y, i)
    if a ~= c then return a > c end
  end
  return false
end

-- lit consumes s when the input continues with it.
local function lit(s)
  if sub(b, pos, pos + #s - 1) == s then
    pos = pos + #s
    return true
  end
  return false
end

local function want(s) if not lit(s) then bad() end end

-- digits consumes [0-9]* and returns them.
local function digits()
  local s, e = find(b, "^%d*", pos)
  pos = e + 1
  return sub(b, s, e)
end

-- canonical is codec.go's isCanonicalInt: how PHP prints an int64.
local function canonical(s)
  local neg = byte(s, 1) == 45 -- '-'
  local d = neg and sub(s, 2) or s
  if #d == 0 or #d > 19 or find(d, "%D") or (byte(d, 1) == 48 and #s > 1) then
    return false
  end
  if #d == 19 then
    return not above(d, neg and "9223372036854775808" or INT64MAX)
  end
  return true
end

-- count is codec_parse.go's count: a length or element count, no sign, no
-- leading zero, no larger than the data.
local function count()
  local d = digits()
  if #d == 0 or (#d > 1 and byte(d, 1) == 48) or #d > 15 then bad() end
  local v = tonumber(d)
  if v > len then bad() end
  return v
end

-- signed consumes -?[0-9]* and checks it is an int as PHP prints it.
local function signedint()
  local s, e = find(b, "^%-?%d*", pos)
  local d = sub(b, s, e)
  pos = e + 1
  if not canonical(d) then bad() end
  return d
end

-- str reads <len>:"<len bytes>" and returns the bytes.
local function str()
  local l = count()
  want(':"')
  if len - pos + 1 < l + 1 then bad() end
  local s = sub(b, pos, pos + l - 1)
  pos = pos + l
  want('"')
  return s
end

-- validclass is codec_parse.go's validClassName.
local function validclass(s)
  return #s > 0 and byte(s, 1) ~= 92 and not find(s, "[^A-Za-z0-9_\\\128-\255]")
end

local function classname()
  if not validclass(str()) then bad() end
end

-- cmpfrac compares two mantissas given as digit strings after "d.":
-- -1, 0 or 1.
local function cmpfrac(x, y)
  if #x < #y then x = x .. string.rep("0", #y - #x) end
  if #y < #x then y = y .. string.rep("0", #x - #y) end
  if x == y then return 0 end
  return above(x, y) and 1 or -1
end

-- float is codec_parse.go's float, zend_gcvt's forms. Where only strtod
-- could say whether the literal overflows or underflows, the script
-- leaves the value to Go.
local function float()
  if lit("INF") or lit("-INF") or lit("NAN") then return end
  lit("-")
  local ip = digits()
  if #ip == 0 or (byte(ip, 1) == 48 and #ip > 1) then bad() end
  local frac = ""
  if lit(".") then
    frac = digits()
    if #frac == 0 then bad() end
  end
  if not lit("E") then
    if #frac > 0 and byte(frac, -1) == 48 then bad() end
    if ip == "0" and sub(frac, 1, 4) == "0000" then bad() end
    -- A fixed literal of at most 308 integer digits is below 1e308, so
    -- finite; one with a non-zero digit is at least 1e-4, so not zero.
    if #ip > 308 then error(UNCERTAIN, 0) end
    return
  end
  if #ip ~= 1 or ip == "0" or #frac == 0 or (#frac > 1 and byte(frac, -1) == 48) then bad() end
  local neg = lit("-")
  if not neg and not lit("+") then bad() end
  local e = digits()
  if #e == 0 or byte(e, 1) == 48 then bad() end
  local sig = (frac == "0") and 1 or 1 + #frac
  if #e >= 4 then bad() end -- 1E±1000 and beyond: infinite or zero
  local x = tonumber(e)
  if (neg and x < 5) or (not neg and x < sig) then bad() end
  if (not neg and x > 308) or (neg and x > 324) then bad() end
  -- At 1E+308 and 1E-324 the mantissa decides: overflow past the largest
  -- float64 (by more than half an ulp), or rounding to zero below half
  -- the smallest denormal (2^-1075), both of which Go refuses. Between
  -- the two 17-digit bounds only strtod knows.
  local m = ip .. frac
  if not neg and x == 308 then
    if cmpfrac(m, "17976931348623159") >= 0 then bad() end
    if cmpfrac(m, "17976931348623158") > 0 then error(UNCERTAIN, 0) end
  elseif neg and x == 324 then
    if cmpfrac(m, "24703282292062327") <= 0 then bad() end
    if cmpfrac(m, "24703282292062328") < 0 then error(UNCERTAIN, 0) end
  end
end

-- key reads an array key, i:N; or s:N:"…";, and returns its name and
-- whether it is an integer key.
local function key()
  local name, intkey
  if lit("i:") then
    name, intkey = signedint(), true
  elseif lit("s:") then
    name, intkey = str(), false
  else
    bad()
  end
  want(";")
  return name, intkey
end

-- value skips one serialized value, arrays and objects included, at
-- nesting depth depth. Containers are walked with an explicit stack, so a
-- session nested 4096 deep costs no Lua recursion.
local function value(depth)
  local left, isarray, top = {}, {}, 0
  while true do
    if len - pos + 1 < 2 then bad() end
    local t = byte(b, pos)
    local opened = false
    if t == 78 then -- N
      want("N;")
    else
      if byte(b, pos + 1) ~= 58 then bad() end -- ':'
      pos = pos + 2
      if t == 98 then -- b
        if not lit("0") and not lit("1") then bad() end
        want(";")
      elseif t == 105 then -- i
        signedint()
        want(";")
      elseif t == 100 then -- d
        float()
        want(";")
      elseif t == 115 then -- s
        str()
        want(";")
      elseif t == 97 or t == 79 then -- a, O
        if t == 79 then
          classname()
          want(":")
        end
        local c = count()
        want(":{")
        if depth + top >= MAXDEPTH then bad() end
        top = top + 1
        left[top], isarray[top] = c, (t == 97)
        opened = true
      elseif t == 67 then -- C: Serializable, payload delimited by length only
        classname()
        want(":")
        local c = count()
        want(":{")
        if len - pos + 1 < c then bad() end
        pos = pos + c
        want("}")
      elseif t == 69 then -- E
        local s = str()
        local c = find(s, ":[^:]*$")
        if not c then bad() end
        local class, case = sub(s, 1, c - 1), sub(s, c + 1)
        if not validclass(class) or not validclass(case) or find(case, "\\", 1, true) then bad() end
        want(";")
      elseif t == 114 or t == 82 then -- r, R
        local d = digits()
        if #d == 0 or byte(d, 1) == 48 or not canonical(d) then bad() end
        want(";")
      else
        bad()
      end
    end
    -- Close finished containers; start the next element of an open one.
    while top > 0 do
      if left[top] == 0 then
        want("}")
        top = top - 1
      else
        left[top] = left[top] - 1
        local name, intkey = key()
        if isarray[top] and not intkey and canonical(name) then bad() end
        break
      end
    end
    if top == 0 then return end
  end
end

-- Walk the top-level entries, remembering where posts_start's value is.
local vs, ve -- posts_start's value, b[vs..ve]
local entries = 0
local seen = {}
local function entry(name, s, e)
  if seen[name] then bad() end -- duplicates: Decode refuses them
  seen[name] = true
  entries = entries + 1
  if name == "posts_start" then vs, ve = s, e end
end

local function walk()
  if len == 0 then return end
  if format == "php" then
    while pos <= len do
      local bar = find(b, "|", pos, true)
      if not bar then bad() end
      local name = sub(b, pos, bar - 1)
      pos = bar + 1
      local s = pos
      value(0)
      entry(name, s, pos - 1)
    end
    return
  end
  want("a:")
  local c = count()
  want(":{")
  for _ = 1, c do
    local name, intkey = key()
    if not intkey and canonical(name) then bad() end
    local s = pos
    value(1)
    -- An integer key's name is its digits, as in Go: a string key with
    -- the same bytes was refused above.
    entry(name, s, pos - 1)
  end
  want("}")
  if pos ~= len + 1 then bad() end
end

local ok, err = pcall(walk)
if not ok then
  if err == MALFORMED then return {"fallback", "malformed"} end
  if err == UNCERTAIN then return {"fallback", "uncertain"} end
  error(err, 0)
end

-- Decimal arithmetic on strings: Lua numbers are doubles, exact only up to
-- 2^53, and posts_start is an int64.
local function strip(d)
  d = string.gsub(d, "^0+", "")
  return d == "" and "0" or d
end
local function cmpabs(x, y) -- both stripped
  if #x ~= #y then return #x < #y and -1 or 1 end
  if x == y then return 0 end
  return above(x, y) and 1 or -1
end
local function addabs(x, y)
  local out, carry = {}, 0
  local i, j = #x, #y
  while i > 0 or j > 0 or carry > 0 do
    local s = carry + (i > 0 and byte(x, i) - 48 or 0) + (j > 0 and byte(y, j) - 48 or 0)
    out[#out + 1] = string.char(48 + s % 10)
    carry = math.floor(s / 10)
    i, j = i - 1, j - 1
  end
  return strip(string.reverse(table.concat(out)))
end
local function subabs(x, y) -- x >= y
  local out, borrow = {}, 0
  local i, j = #x, #y
  while i > 0 do
    local s = byte(x, i) - 48 - borrow - (j > 0 and byte(y, j) - 48 or 0)
    if s < 0 then s, borrow = s + 10, 1 else borrow = 0 end
    out[#out + 1] = string.char(48 + s)
    i, j = i - 1, j - 1
  end
  return strip(string.reverse(table.concat(out)))
end
-- addclamped is store.go's addClamped: v + n (n >= 0), at most int64 max.
local function addclamped(v, m)
  m = strip(m)
  if byte(v, 1) ~= 45 then
    local s = addabs(strip(v), m)
    if cmpabs(s, INT64MAX) > 0 then return INT64MAX end
    return s
  end
  local a = strip(sub(v, 2))
  if cmpabs(m, a) >= 0 then return subabs(m, a) end
  return "-" .. subabs(a, m)
end

-- toint is codec.go's Data.Int on posts_start's value: the int64 it reads
-- as a canonical decimal string, or nil.
local function toint(v)
  local t = byte(v, 1)
  if t == 105 then -- i:N;
    return sub(v, 3, -2)
  elseif t == 115 then -- s:L:"digits"; with an optional sign, as strconv.ParseInt
    local q = find(v, '"', 1, true)
    local d = sub(v, q + 1, -3)
    local sign, rest = string.match(d, "^([+-]?)(%d+)$")
    if not sign then return nil end
    rest = strip(rest)
    if #rest > 19 or (#rest == 19 and above(rest, sign == "-" and "9223372036854775808" or INT64MAX)) then
      return nil
    end
    if sign == "-" and rest ~= "0" then return "-" .. rest end
    return rest
  elseif t == 100 then -- d:F; an integral float in int64 range
    local f = sub(v, 3, -2)
    if f == "INF" or f == "-INF" or f == "NAN" then return nil end
    local sign, ip, frac = string.match(f, "^(-?)(%d+)%.?(%d*)$")
    if sign then
      -- At most 15 significant digits are exact in a float64: an integral
      -- literal is that integer, a fraction stays a fraction.
      -- At 20 digits and more it is at least 1e19, past int64 whatever
      -- the rounding. A fraction whose first digit is 1 to 8 is at least
      -- 0.1 away from an integer, more than half an ulp below 2^50.
      if #ip >= 20 then return nil end
      if #frac > 0 and #ip <= 15 and find(frac, "^[1-8]") then return nil end
      if #ip + #frac > 15 then error(UNCERTAIN, 0) end
      if #frac > 0 then return nil end
      if sign == "-" and ip ~= "0" then return "-" .. ip end
      return ip
    end
    local m1, mf, esign, e = string.match(f, "^(-?%d)%.(%d+)E([+-])(%d+)$")
    if not m1 then error(UNCERTAIN, 0) end
    if esign == "-" then return nil end -- 0 < |x| < 1, and never 0 (see float)
    if mf == "0" then mf = "" end
    e = tonumber(e)
    if e >= 19 then return nil end -- at least 1e19: past int64
    if #mf + 1 > 15 or e + 1 > 15 then error(UNCERTAIN, 0) end
    if e < #mf then return nil end
    return m1 .. mf .. string.rep("0", e - #mf)
  end
  return nil
end

local got
if vs then
  local okint, v = pcall(toint, sub(b, vs, ve))
  if not okint then
    if v == UNCERTAIN then return {"fallback", "uncertain"} end
    error(v, 0)
  end
  if v and tonumber(n) == 0 then
    -- Nothing changes: only refresh the expiry, as PHP's EXPIRE would.
    redis.call("EXPIRE", skey, ttl)
    return {"ok", v}
  end
  got = addclamped(v or initial, n)
  b = sub(b, 1, vs - 1) .. "i:" .. got .. ";" .. sub(b, ve + 1)
else
  got = addclamped(initial, n)
  if format == "php" then
    b = b .. "posts_start|i:" .. got .. ";"
  elseif len == 0 then
    b = 'a:1:{s:11:"posts_start";i:' .. got .. ";}"
  else
    local body = string.match(b, "^a:%d+:{(.*)}$")
    b = "a:" .. (entries + 1) .. ":{" .. body .. 's:11:"posts_start";i:' .. got .. ";}"
  end
end
redis.call("SETEX", skey, ttl, b)
return {"ok", got}
