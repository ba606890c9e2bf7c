--[[
atoll: job_submit.lua for slurmctld (JobSubmitPlugins=lua).

The atoll SPANK plugin records a job's island request on the submit side
(--fabric-island, or the admin's default_island) as ATOLL_ISLAND in the job's
SPANK environment. Here, where the node count is known, the request becomes
something Slurm's own scheduler enforces, so Slurm stays in charge of timing
(queueing, priorities, backfill) while atoll decides the islands.

What Slurm is asked is not decided here: atoll's C++ (slurm/ask.cpp, the one
author of it, also behind atoll-place --slurm in cli_filter.lua) wrote the
answer for every request, policy and node count into atoll-requests.conf in
atoll's configuration directory, CONF_DIR (`atoll-topo slurm --format requests`). This script looks the
job up and applies the row:

  refuse           the job is refused with the row's message (no island of
                   the level can ever hold it, naming the largest)
  CONSTRAINT       a matching-OR constraint over those islands, best first,
                   e.g. --constraint="[grp-leaf03|grp-leaf01]" (after the
                   user's own features, joined with &): the job starts in the
                   first of them with room, never across two. At most 64, a
                   turn of a longer row per job; none when the job's own
                   --constraint has brackets (Slurm takes one set). The islands are
                   node features written by `atoll-topo slurm --format features`.
  SWITCHES WAIT    --switches=K@island_wait or @leaf_wait (never over the
                   user's own): one leaf switch for a preferred leaf, the
                   fewest leaves above a leaf (topology/tree waits for at most
                   K leaf switches, 22.05 to 26.05; only TopologyParam=dragonfly
                   resets counts above one)
  WIDEN            a preferred group or pod, or auto's NVLink domain: the
                   admin comment "atoll-widen DEADLINE HELD WIDER": Slurm
                   cannot drop a constraint by itself, so contrib/atoll-widen
                   swaps the row's wider constraint WIDER (or none, "-") for
                   the islands HELD in the job's features as they are then,
                   once island_wait is over. For auto, the wait the step model decided when it
                   is shorter (cli_filter.lua sends it as --switches=K@WAIT;
                   a user's own --switches=K@T bounds it the same way).

The policy, island_wait, leaf_wait and strict come from the atoll.so line of
the plugstack configuration, read by `atoll-place settings` (the plugin's own
parser, at most once a minute), never from the job. With policy=random the
row's islands are shuffled per job.

A job whose constraint already names atoll islands (cli_filter.lua ranked them
on the idle nodes with the same C++) keeps it; the row's switches and widen
mark still apply. Jobs without ATOLL_ISLAND are left alone.
]]

-- the table for topology/tree, and for topology/block (a partition that runs
-- block uses atoll-requests-block.conf when there is one)
local REQUESTS_FILE = "atoll-requests.conf"
local REQUESTS_BLOCK_FILE = "atoll-requests-block.conf"
local CONF_DIR = "@atollconfdir@/"  -- where the tables are (configure --with-atoll-confdir)

local function script_dir()
    local src = debug.getinfo(1, "S").source
    return src:match("^@(.*/)") or "./"
end

-- The table, read once per job (slurmctld may be reconfigured with a new one):
-- rows[REQUEST .. " " .. POLICY] = list of {from, to, refuse | level, k, wait,
-- constraint, widen, segment}; named = every island name the table holds
-- ("domain" for an NVLink domain, else true);
-- topology = the Slurm topology its answers are for (tree or block).
local function load_requests(topology)
    local path = CONF_DIR .. REQUESTS_FILE
    local f
    if topology == "block" then
        f = io.open(CONF_DIR .. REQUESTS_BLOCK_FILE, "r")
        if f then path = CONF_DIR .. REQUESTS_BLOCK_FILE end
    end
    f = f or io.open(path, "r")
    if not f then
        return nil, nil, "cannot open " .. path
    end
    local rows, named = {}, {}
    local lineno = 0
    -- named[ISLAND] = true, or "domain" for an NVLink domain (only domain
    -- rows list domains; a leaf row's constraint may list the groups or pods
    -- around it, so no other level can be told from the rows)
    local function names(w, domain)
        if w ~= "-" and w ~= "*" then
            for tok in w:gmatch("[^|]+") do named[tok] = domain and "domain" or named[tok] or true end
        end
    end
    local topology = "tree"
    for line in f:lines() do
        lineno = lineno + 1
        local t = line:match("^# topology: (%a+)")
        if t then topology = t end
        if not line:match("^%s*#") and line:match("%S") then
            local req, pol, from, to, rest = line:match("^(%S+) (%S+) (%d+) (%S+) (.*)$")
            local row
            if req then
                local msg = rest:match("^refuse (.*)$")
                if msg then
                    row = {refuse = msg}
                else
                    local lv, k, wait, cons, widen, seg = rest:match("^(%a+) (%d+) (%S+) (%S+) (%S+) (%d+)$")
                    if lv and wait ~= "island" and wait ~= "leaf" and wait ~= "-" then
                        lv = nil
                    end
                    if lv then
                        row = {level = lv, k = tonumber(k), wait = wait, constraint = cons, widen = widen,
                               segment = tonumber(seg)}
                        names(cons, lv == "domain")
                        names(widen)
                    end
                end
            end
            if not row or (to ~= "-" and not to:match("^%d+$")) then
                f:close()
                return nil, nil, string.format("%s:%d: found \"%s\", expected REQUEST POLICY FROM TO ANSWER (a table of atoll-requests 2: write it again with atoll-topo slurm --format requests)", path, lineno, line)
            end
            row.from = tonumber(from)
            row.to = to == "-" and math.huge or tonumber(to)
            local key = req .. " " .. pol
            rows[key] = rows[key] or {}
            table.insert(rows[key], row)
        end
    end
    f:close()
    return rows, named, nil, topology, path
end

local function spank_env(job_desc, name)
    if job_desc.spank_job_env == nil then
        return nil
    end
    for _, kv in pairs(job_desc.spank_job_env) do
        local k, v = tostring(kv):match("^([^=]+)=(.*)$")
        if k == name then
            return v
        end
    end
    return nil
end

-- atoll's bracket in the features: the first [...] naming an island, as
-- written ("[a|b]"), or nil.
local function held_islands(features, named)
    for inner in (features or ""):gmatch("%[([^%]]*)%]") do
        for tok in inner:gmatch("[^|]+") do
            if named[tok] then
                return "[" .. inner .. "]"
            end
        end
    end
    return nil
end

-- The features with atoll's bracket replaced by `with` ("" drops it, and
-- the & that joined it).
local function replace_islands(features, named, with)
    local out = features or ""
    local held = held_islands(out, named)
    if held then
        local i = out:find(held, 1, true)
        out = out:sub(1, i - 1) .. with .. out:sub(i + #held)
    end
    out = out:gsub("&&+", "&"):gsub("^&", ""):gsub("&$", "")
    return out
end

-- What atoll-widen reads back: island names of these characters only, in
-- a mark of at most MARK_MAX characters (two brackets of at most 64 islands
-- each: 8,400 characters with names of 64)
local MARK_MAX = 16384
local function markable(s)
    return not s:find("[^A-Za-z0-9_.:%[%]|&,*()!-]")
end

-- The site's settings (policy=, island_wait=, leaf_wait=, strict=) from the
-- atoll.so line of the plugstack configuration, never from the job: a user
-- can write anything into a job's SPANK environment. atoll-place reads the
-- line (the C++ that also parses it for the plugin); the answer is kept for
-- SETTINGS_TTL seconds, so slurmctld runs it at most once a minute, bounded
-- by TIMEOUT. If it fails, the job goes on with the defaults and one error.
local ATOLL_PLACE = "@bindir@/atoll-place"
local TIMEOUT = 3        -- seconds
local SETTINGS_TTL = 60  -- seconds
local DEFAULTS = {policy = "atoll", island_wait = 600, leaf_wait = 600, strict = false, topology = "tree"}

local function quote(s)
    return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

atoll_settings_cache = atoll_settings_cache or {at = -math.huge}
atoll_settings_warned = atoll_settings_warned or {}

local function site_conf()
    local now = os.time()
    local c = atoll_settings_cache
    if c.conf and now - c.at < SETTINGS_TTL then
        return c.conf
    end
    local cmd = string.format("timeout %d %s settings --slurm-conf %s 2>&1; echo \"rc=$?\"", TIMEOUT,
                              quote(ATOLL_PLACE), quote(script_dir() .. "slurm.conf"))
    local p = io.popen(cmd)
    local out = p and p:read("*a") or ""
    if p then p:close() end
    local body, rc = out:match("^(.-)rc=(%d+)%s*$")
    local conf = {}
    for k, v in pairs(DEFAULTS) do conf[k] = v end
    conf.partitions = {}
    if rc == "0" then
        for line in (body or ""):gmatch("[^\n]+") do
            local k, v = line:match("^([%w_@.-]+)=(.*)$")
            if k == "policy" then conf.policy = v end
            if k == "island_wait" then conf.island_wait = tonumber(v) or conf.island_wait end
            if k == "leaf_wait" then conf.leaf_wait = tonumber(v) or conf.leaf_wait end
            if k == "strict" then conf.strict = (v == "yes") end
            if k == "topology" then conf.topology = v end
            local part = k and k:match("^topology@(.+)$")
            if part then conf.partitions[part] = v end
            -- a wait Slurm cuts (max_switch_wait): said once, not at every refresh
            if k == "warning" and not atoll_settings_warned[v] then
                atoll_settings_warned[v] = true
                slurm.log_info("atoll: %s", v)
            end
        end
    else
        local why = rc == "124" and ("atoll-place settings took longer than " .. TIMEOUT .. " s")
                    or ((body or out):gsub("%s+$", ""))
        slurm.log_error("atoll: %s; policy=atoll, island_wait=600 for %d s", why, SETTINGS_TTL)
    end
    atoll_settings_cache = {at = now, conf = conf}
    return conf
end

-- the islands of a row's field as a constraint, shuffled for policy=random
local function bracket(field, policy, room, turn)
    if field == "-" or field == "*" then
        return ""
    end
    local list = {}
    for tok in field:gmatch("[^|]+") do table.insert(list, tok) end
    if policy == "random" then
        for i = #list, 2, -1 do
            local j = math.random(i)
            list[i], list[j] = list[j], list[i]
        end
    end
    -- more than Slurm takes (room): the job's turn of the list, kept in the
    -- list's order (best first)
    if #list > room then
        local first, pick = (turn * room) % #list, {}
        for i = 0, room - 1 do pick[#pick + 1] = (first + i) % #list + 1 end
        table.sort(pick)
        local out = {}
        for _, i in ipairs(pick) do out[#out + 1] = list[i] end
        list = out
    end
    return "[" .. table.concat(list, "|") .. "]"
end

-- Slurm sets a bit per feature of a constraint's brackets in a bitmap of
-- MAX_FEATURES = 64 (src/slurmctld/node_scheduler.c, _valid_features(), 22.05
-- to 26.05); more wrote past it (slurmctld 22.05 died at submit of a job with
-- "[f1|...|f70]"). A table row lists every island of its level (hundreds of
-- NVLink domains on a large cluster): each job takes a turn of 64 of them,
-- jobs in turn covering the list (cli_filter.lua's live answer is the best
-- 64 already). And Slurm takes one set of brackets (build_feature_list():
-- more is "Invalid feature specification"): a job whose own --constraint
-- has brackets gets none of atoll's.
local MAX_OR = 64
atoll_turns = atoll_turns or {}  -- a row (request, policy, first count) -> its next turn
local function has_brackets(features)
    return features ~= nil and tostring(features):find("[", 1, true) ~= nil
end

function slurm_job_submit(job_desc, part_list, submit_uid)
    local conf = site_conf()
    -- strict=yes and the plugin could not read the fabric at submit: an
    -- optional plugstack line cannot fail sbatch, so the job is refused here
    local refuse = spank_env(job_desc, "ATOLL_REFUSE")
    if refuse ~= nil and conf.strict then
        slurm.log_user("atoll: %s (strict: the job is refused rather than run without atoll)", refuse)
        return slurm.ERROR
    end
    local req = spank_env(job_desc, "ATOLL_ISLAND")
    if req == nil or req == "none" then
        return slurm.SUCCESS
    end
    local wait = conf.island_wait
    local leaf_wait = conf.leaf_wait
    -- --switches=K@WAIT as submitted (cli_filter.lua's, or the user's own),
    -- before this function sets one
    local function valid(v)
        return v ~= nil and v ~= slurm.NO_VAL and v >= 0 and v < 2147483647
    end
    local asked_wait = valid(job_desc.req_switch) and job_desc.req_switch > 0 and valid(job_desc.wait4switch) and
                       job_desc.wait4switch or nil
    local policy = conf.policy
    local explain = spank_env(job_desc, "ATOLL_EXPLAIN") == "1"
    -- the nodes the job needs at least: -N, else --ntasks over
    -- --ntasks-per-node (cli_filter.lua also counts by the nodes' CPUs)
    local function count(v)
        if v == nil or v == slurm.NO_VAL or v == slurm.NO_VAL16 or v == 0 or v >= 2147483647 then
            return nil
        end
        return v
    end
    local n = count(job_desc.min_nodes) or 1
    local tasks, per = count(job_desc.num_tasks), count(job_desc.ntasks_per_node)
    if tasks and per then
        n = math.max(n, math.ceil(tasks / per))
    end
    -- what the job's partition runs (topology.yaml: per partition)
    local part = job_desc.partition and tostring(job_desc.partition):match("^([^,]+)")
    local want = (part and conf.partitions and conf.partitions[part]) or conf.topology
    local rows, named, err, topology, path = load_requests(want)
    if not rows then
        -- what still applies: a constraint cli_filter.lua (or the user) gave
        local has = job_desc.features ~= nil and job_desc.features ~= ""
        slurm.log_info("atoll: %s; job left as submitted", err)
        if has then
            slurm.log_user("atoll: warning: %s; the job keeps the constraint it was submitted with (%s) but gets "
                           .. "no switch count, wait or widening from atoll", err, job_desc.features)
        else
            slurm.log_user("atoll: warning: %s; the job runs without island placement", err)
        end
        return slurm.SUCCESS
    end
    if topology ~= want then
        slurm.log_error("atoll: %s is for topology/%s but the job's partition runs topology/%s: write %s with atoll-topo slurm --format requests%s",
                        path, topology, want, want == "block" and REQUESTS_BLOCK_FILE or REQUESTS_FILE,
                        want == "block" and " --topology block" or "")
    end
    -- cli_filter.lua already named the islands, ranked on the live state
    -- (live_level: "domain" when the first named is an NVLink domain)
    local live, live_level = false, nil
    if job_desc.features ~= nil and job_desc.features ~= "" then
        for tok in job_desc.features:gmatch("[^%[%]|&,*()!]+") do
            if named[tok] then
                live = true
                live_level = named[tok] ~= true and named[tok] or nil
                break
            end
        end
    end
    -- auto with --switches=K@0 and no island named (cli_filter.lua: the step
    -- model found the island not worth a wait; or the user's own): nothing
    -- more is asked. With islands named, K@0 is a wait of 0 (leaf_wait=0, or
    -- the user's own): the job is still marked to widen, at once
    if req == "auto" and not live and job_desc.req_switch ~= nil and job_desc.req_switch ~= slurm.NO_VAL and
       job_desc.req_switch > 0 and job_desc.wait4switch == 0 then
        if explain then
            slurm.log_user("atoll: auto, --switches=%d@0: no island wait, nothing asked", job_desc.req_switch)
        end
        return slurm.SUCCESS
    end
    local list = rows[req .. " " .. policy]
    if list == nil and rows[req .. " atoll"] ~= nil then
        slurm.log_info("atoll: policy=%s is not in %s; atoll's order instead", tostring(policy), REQUESTS_FILE)
        list = rows[req .. " atoll"]
    end
    local row
    for _, r in ipairs(list or {}) do
        if r.from <= n and n <= r.to then
            row = r
            break
        end
    end
    if row == nil then
        slurm.log_user("atoll: bad island request \"%s\" for %d nodes: not in %s", req, n, REQUESTS_FILE)
        return slurm.ERROR
    end
    if row.refuse then
        slurm.log_user("atoll: %s", (row.refuse:gsub("{n}", tostring(n))))
        return slurm.ERROR
    end
    -- NVLink domains named by cli_filter.lua, which also counts the nodes
    -- by --gpus and by the nodes' CPUs (--ntasks alone): where it counted
    -- more and this count's row is not a domain's, the domain row (the
    -- first for this count or more) gives the switches and the widening; a
    -- job held to a domain by a row that never widens would never widen
    if live_level and row.level ~= live_level then
        local same
        for _, r in ipairs(list) do
            if not r.refuse and r.level == live_level and (r.to >= n or same == nil) then
                same = r
                if r.to >= n then break end
            end
        end
        if same then row = same end
    end
    -- --switches=K@WAIT, never over the user's own
    local k, w = row.k, (row.wait == "leaf" and leaf_wait or wait)
    if k > 0 and (job_desc.req_switch == nil or job_desc.req_switch == slurm.NO_VAL or job_desc.req_switch == 0) then
        job_desc.req_switch = k
        job_desc.wait4switch = w
    end
    -- --segment=N (topology/block; Slurm 25.11 and later let job_submit set
    -- it, earlier ones have no such field: cli_filter.lua sets it there)
    if row.segment > 0 and job_desc.segment_size ~= nil and
       (job_desc.segment_size == 0 or job_desc.segment_size == slurm.NO_VAL16) then
        job_desc.segment_size = row.segment
        -- more than one segment: all in one aggregated block
        -- (CONSOLIDATE_SEGMENTS, bit 44 of slurm.h since 25.11, where
        -- segment_size came to job_submit; plain arithmetic for Lua 5.1)
        local flag = slurm.CONSOLIDATE_SEGMENTS or 2 ^ 44
        local bits = job_desc.bitflags
        if n > row.segment and bits ~= nil and bits % (2 * flag) < flag then
            job_desc.bitflags = bits + flag
        end
    end
    -- (a row longer than Slurm takes: this job's turn of it)
    -- (each row its own turns: helper 44, one counter for all rows gave a
    -- row of 128 the same window whenever jobs of two rows alternated)
    local turn_key = req .. " " .. policy .. " " .. row.from
    local turn = atoll_turns[turn_key] or 0
    atoll_turns[turn_key] = turn + 1
    local c = live and "" or bracket(row.constraint, policy, MAX_OR, turn)
    if c ~= "" and has_brackets(job_desc.features) then
        -- the job's own brackets: Slurm takes no second set
        if req ~= "auto" and not req:match(":preferred$") then
            slurm.log_user("atoll: --fabric-island=%s holds the job to its islands with a bracketed --constraint, and "
                           .. "Slurm takes one set of brackets, which --constraint=%s has: drop those brackets, or ask "
                           .. "--fabric-island=%s:preferred or auto", req, job_desc.features, req:match("^[^:]+"))
            return slurm.ERROR
        end
        slurm.log_user("atoll: warning: --constraint=%s has brackets, and Slurm takes one set: --fabric-island=%s adds "
                       .. "no island constraint", job_desc.features, req)
        c = ""
    end
    if not live and c ~= "" then
        if job_desc.features ~= nil and job_desc.features ~= "" then
            job_desc.features = job_desc.features .. "&" .. c
        else
            job_desc.features = c
        end
    end
    local then_ = nil
    -- auto: the island wait the step model decided (cli_filter.lua puts it
    -- on --switches: for a domain K@WAIT, for a group or pod K@min(leaf_wait,
    -- WAIT), so exact only below leaf_wait) bounds the atoll-widen deadline;
    -- a user's own --switches=K@T bounds it the same way
    if req == "auto" and row.widen ~= "-" and asked_wait ~= nil and
       (row.level == "domain" or asked_wait < leaf_wait) then
        wait = math.min(wait, asked_wait)
    end
    -- the mark names the islands the job is held to and what replaces them
    -- (atoll-widen swaps the one for the other in the job's features as they
    -- are then, so a change the user makes meanwhile is kept)
    if row.widen ~= "-" then
        local held = held_islands(job_desc.features, named)
        local wider = bracket(row.widen, policy, MAX_OR, turn)
        local mark = held and string.format("atoll-widen %d %s %s", os.time() + wait, held, wider ~= "" and wider or "-")
        if held == nil then
            slurm.log_info("atoll: no island bracket in the features \"%s\"; no atoll-widen mark", tostring(job_desc.features))
        elseif #mark <= MARK_MAX and markable(held) and markable(wider) then
            job_desc.admin_comment = mark
            then_ = wider ~= "" and wider or "anywhere"
        else
            -- a mark atoll-widen could not read would hold the job to its
            -- islands for ever: it gets the wider islands now
            local target = replace_islands(job_desc.features, named, wider)
            job_desc.features = target
            c = wider  -- (what --fabric-explain says the job is held to)
            local why = #mark > MARK_MAX and string.format("%d characters, at most %d", #mark, MARK_MAX)
                        or "an island name outside A-Z a-z 0-9 _ . : -"
            local _, count = held:gsub("|", "|")
            slurm.log_user("atoll: warning: the islands cannot be marked for atoll-widen (%s): the job is held to %s now, "
                           .. "without waiting for the %d island%s it was held to", why,
                           #wider <= 200 and wider ~= "" and wider or wider ~= "" and "the islands one level up" or "no island",
                           count + 1, count > 0 and "s" or "")
        end
    end
    if explain then
        local parts = {}
        table.insert(parts, string.format("atoll: %d node%s, --fabric-island=%s (%s): ", n, n == 1 and "" or "s", req, row.level))
        table.insert(parts, live and ("islands chosen on live state by cli_filter.lua: " .. job_desc.features)
                                  or (c ~= "" and ("constraint " .. c) or "no constraint"))
        -- the job's --switches as it stands (its own, cli_filter.lua's or the row's)
        local sk, sw = job_desc.req_switch, job_desc.wait4switch
        if valid(sk) and sk > 0 then
            if valid(sw) then
                table.insert(parts, string.format(", at most %d leaf switch%s for up to %d s", sk, sk > 1 and "es" or "", sw))
            else
                table.insert(parts, string.format(", at most %d leaf switch%s", sk, sk > 1 and "es" or ""))
            end
        end
        if row.segment > 0 then
            table.insert(parts, string.format(", segments of %d nodes, each in one block", row.segment))
        end
        if then_ then
            table.insert(parts, string.format("; after %d s (atoll-widen): %s", wait, then_))
        end
        slurm.log_user("%s", table.concat(parts))
    end
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end

slurm.log_info("atoll: job_submit.lua loaded")
return slurm.SUCCESS
