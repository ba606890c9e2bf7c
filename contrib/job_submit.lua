--[[
atoll: job_submit.lua for slurmctld (JobSubmitPlugins=lua).

The atoll SPANK plugin records a job's island request on the submit side
(--fabric-island, or the admin's default_island) as ATOLL_ISLAND in the job's
SPANK environment. Here, where the node count is known, the request becomes
something Slurm's own scheduler enforces, so Slurm stays in charge of timing
(queueing, priorities, backfill) while atoll decides the islands:

  LEVEL:required   a matching-OR constraint over the islands of LEVEL that can
                   ever hold the job, e.g. --constraint="[grp-leaf03|grp-leaf01]":
                   the job starts in the first of them with room, never
                   across two. A group or pod also gets --switches=K@WAIT,
                   K the fewest leaves that can hold the job (see below). The islands are node features written by
                   `atoll-topo slurm --format features`.
  LEVEL:preferred, auto
                   a leaf: --switches=1@WAIT, one leaf switch of atoll's
                   topology.conf waited for up to island_wait seconds (raise
                   max_switch_wait in SchedulerParameters above 300 s), then
                   the job widens one level: a matching-OR constraint over the
                   islands of the next level up (a group, else a pod) keeps it
                   there. A group or pod: the matching-OR constraint of the
                   level, --switches=K@LEAF_WAIT with K the fewest leaves that
                   can hold the job (Slurm 22.05 waits for at most K leaf
                   switches; later releases reset counts above one), and the
                   admin comment "atoll-widen DEADLINE FEATURES": Slurm cannot
                   drop a constraint by itself, so contrib/atoll-widen swaps
                   in the one a level up once island_wait is over.
                   auto is the smallest level that can hold the job; larger
                   than any pod: --switches=K@LEAF_WAIT alone.

The plugstack line's policy= orders the islands of a constraint:
atoll (default) healthy islands first, then the smallest that holds the job;
first-fit by name; random shuffled; slurm-tree sets no constraint and asks
Slurm's topology/tree for --switches=1@WAIT when one leaf can hold the job,
required or not (Slurm's own choice, for comparison).

Without live state the order is static. contrib/cli_filter.lua, where it is
installed, ranks the islands on the idle nodes with atoll's engine before the
job is submitted; a job whose constraint already names atoll islands is left
as it is here.

A request no island can ever hold is refused at submit, naming the largest
island. Jobs without ATOLL_ISLAND are left alone. The islands come from
atoll-islands.conf next to this script (`atoll-topo slurm --format islands`).
]]

local ISLANDS_FILE = "atoll-islands.conf"

local function script_dir()
    local src = debug.getinfo(1, "S").source
    return src:match("^@(.*/)") or "./"
end

local function load_islands()
    local path = script_dir() .. ISLANDS_FILE
    local f = io.open(path, "r")
    if not f then
        return nil, "cannot open " .. path
    end
    local islands = {}
    local lineno = 0
    for line in f:lines() do
        lineno = lineno + 1
        if not line:match("^%s*#") and line:match("%S") then
            local level, name, cap, healthy = line:match("^(%S+)%s+(%S+)%s+(%d+)%s+([01])%s*$")
            if not level then
                f:close()
                return nil, string.format("%s:%d: found \"%s\", expected LEVEL NAME CAPACITY HEALTHY", path, lineno, line)
            end
            table.insert(islands, {level = level, name = name, cap = tonumber(cap), healthy = healthy == "1"})
        end
    end
    f:close()
    return islands
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

local function largest(islands, level)
    local m = 0
    for _, is in ipairs(islands) do
        if is.level == level and is.cap > m then
            m = is.cap
        end
    end
    return m
end

-- fewest leaf islands whose capacities hold n
local function min_leaves(islands, n)
    local caps = {}
    for _, is in ipairs(islands) do
        if is.level == "leaf" then
            table.insert(caps, is.cap)
        end
    end
    table.sort(caps, function(a, b) return a > b end)
    local sum, k = 0, 0
    for _, c in ipairs(caps) do
        if sum >= n then
            break
        end
        sum = sum + c
        k = k + 1
    end
    return k
end

local function names_of(cands)
    local names = {}
    for _, is in ipairs(cands) do
        table.insert(names, is.name)
    end
    return table.concat(names, "|")
end

-- The features with atoll's bracket (the first [...] naming an island)
-- replaced by `with` ("" drops it, and the & that joined it).
local function replace_islands(features, named, with)
    local done = false
    local out = (features or ""):gsub("%[([^%]]*)%]", function(inner)
        if done then
            return nil
        end
        for tok in inner:gmatch("[^|]+") do
            if named[tok] then
                done = true
                return with
            end
        end
        return nil
    end)
    out = out:gsub("&&+", "&"):gsub("^&", ""):gsub("&$", "")
    return out
end

-- Two levels cut the hosts into the same islands (a rail group of one leaf
-- is that leaf under another name) when they have as many islands of the
-- same capacities: each upper island is a union of lower ones.
local function same_partition(islands, a, b)
    local ca, cb = {}, {}
    for _, is in ipairs(islands) do
        if is.level == a then table.insert(ca, is.cap) end
        if is.level == b then table.insert(cb, is.cap) end
    end
    if #ca ~= #cb then
        return false
    end
    table.sort(ca)
    table.sort(cb)
    for i = 1, #ca do
        if ca[i] ~= cb[i] then return false end
    end
    return true
end

-- The site's settings from the atoll.so line of the plugstack configuration
-- (atoll-plugstack.lua, next to this file and slurm.conf), never from the
-- job: a user can write anything into a job's SPANK environment.
local function site_conf()
    local ok, reader = pcall(dofile, script_dir() .. "atoll-plugstack.lua")
    if not ok then
        slurm.log_error("atoll: %s; island_wait=600, policy=atoll", tostring(reader))
        return {policy = "atoll", island_wait = 600, strict = false}
    end
    return reader(script_dir() .. "slurm.conf")
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
    local leaf_wait = conf.leaf_wait or wait
    local policy = conf.policy
    local explain = spank_env(job_desc, "ATOLL_EXPLAIN") == "1"
    local n = job_desc.min_nodes
    if n == nil or n == slurm.NO_VAL or n == 0 then
        n = 1
    end
    local islands, err = load_islands()
    if not islands then
        slurm.log_info("atoll: %s; job left as submitted", err)
        slurm.log_user("atoll: warning: %s; the job runs without island placement", err)
        return slurm.SUCCESS
    end
    -- --switches=K@WAIT, never over the user's own
    local function ask_switches(k, w)
        if job_desc.req_switch == nil or job_desc.req_switch == slurm.NO_VAL or job_desc.req_switch == 0 then
            job_desc.req_switch = k
            job_desc.wait4switch = w
        end
    end
    local level, fit = req:match("^(%a+):(%a+)$")
    if req == "auto" then
        fit = "preferred"
        for _, l in ipairs({"leaf", "group", "pod"}) do
            if largest(islands, l) >= n then
                level = l
                break
            end
        end
        if level == nil then
            -- larger than any pod: the whole fabric, on the fewest leaves for leaf_wait
            if policy ~= "slurm-tree" then
                ask_switches(min_leaves(islands, n), leaf_wait)
                if explain then
                    slurm.log_user("atoll: %d nodes, larger than any pod: at most %d leaf switches for up to %d s",
                                   n, job_desc.req_switch, job_desc.wait4switch)
                end
            end
            return slurm.SUCCESS
        end
    end
    if level == nil then
        slurm.log_user("atoll: bad island request \"%s\"", req)
        return slurm.ERROR
    end
    -- the islands of a level that can ever hold the job, in the policy's order
    local function candidates(lv)
        local cands = {}
        for _, is in ipairs(islands) do
            if is.level == lv and is.cap >= n then
                table.insert(cands, is)
            end
        end
        if policy == "first-fit" then
            table.sort(cands, function(a, b) return a.name < b.name end)
        elseif policy == "random" then
            for i = #cands, 2, -1 do
                local j = math.random(i)
                cands[i], cands[j] = cands[j], cands[i]
            end
        else
            -- healthy islands first, then the smallest that holds the job (best fit)
            table.sort(cands, function(a, b)
                if a.healthy ~= b.healthy then return a.healthy end
                if a.cap ~= b.cap then return a.cap < b.cap end
                return a.name < b.name
            end)
        end
        return cands
    end
    local function constrain_str(c)
        if job_desc.features ~= nil and job_desc.features ~= "" then
            c = job_desc.features .. "&" .. c
        end
        job_desc.features = c
        return c
    end
    local function constrain(cands)
        return constrain_str("[" .. names_of(cands) .. "]")
    end
    local named = {}
    for _, is in ipairs(islands) do named[is.name] = true end
    local order = {"leaf", "group", "pod"}
    -- the constraint one level up: the islands of the first level above whose
    -- islands are not these ("" when none: anywhere)
    local function wider_constraint()
        local start = 0
        for i, l in ipairs(order) do if l == level then start = i end end
        for i = start + 1, #order do
            local up = candidates(order[i])
            if #up > 0 and not same_partition(islands, level, order[i]) then
                return "[" .. names_of(up) .. "]", order[i]
            end
        end
        return "", nil
    end
    -- Above a leaf, --switches=K@WAIT asks for the fewest leaves (K) for
    -- leaf_wait (island_wait unless set): Slurm 22.05 waits for at most K
    -- leaf switches, later releases reset counts above one to none. Not
    -- over the user's own.
    local function fewest_leaves()
        if level == "leaf" then
            return 1
        end
        ask_switches(min_leaves(islands, n), leaf_wait)
        return job_desc.req_switch
    end
    -- A preferred group or pod: Slurm cannot wait a bounded time for one
    -- (--switches counts leaf switches), so the job is constrained to the
    -- level now and marked for atoll-widen, which swaps in the constraint one
    -- level up once the wait is over.
    local function mark_widen()
        fewest_leaves()
        local c, lv = wider_constraint()
        local target = replace_islands(job_desc.features, named, c)
        job_desc.admin_comment = string.format("atoll-widen %d %s", os.time() + wait, target ~= "" and target or "-")
        return lv and ("within one " .. lv .. ": " .. c) or "anywhere"
    end
    -- cli_filter.lua already named the islands, ranked on the live state
    if job_desc.features ~= nil and job_desc.features ~= "" then
        for tok in job_desc.features:gmatch("[^%[%]|&,*()!]+") do
            if named[tok] then
                local then_ = nil
                if fit == "preferred" and level ~= "leaf" and policy ~= "slurm-tree" then
                    then_ = mark_widen()
                elseif level ~= "leaf" and policy ~= "slurm-tree" then
                    fewest_leaves()
                end
                if explain then
                    slurm.log_user("atoll: %d nodes: islands chosen on live state by cli_filter.lua: %s%s",
                                   n, job_desc.features, then_ and (" for up to " .. wait .. " s, then " .. then_) or "")
                end
                return slurm.SUCCESS
            end
        end
    end
    local cands = candidates(level)
    if #cands == 0 then
        slurm.log_user("atoll: --fabric-island=%s: no %s can hold %d nodes; the largest %s holds %d",
                       req, level, n, level, largest(islands, level))
        return slurm.ERROR
    end
    if fit == "required" and policy ~= "slurm-tree" then
        local c = constrain(cands)
        local k = fewest_leaves()
        if explain then
            slurm.log_user("atoll: %d nodes in one %s: constraint %s%s", n, level, c,
                           k > 1 and string.format(", at most %d leaf switches for up to %d s", k, leaf_wait) or "")
        end
        return slurm.SUCCESS
    end
    -- preferred leaf: Slurm's --switches=1@WAIT waits for one leaf, and a
    -- constraint on the next level up keeps the job from widening further
    if level == "leaf" then
        ask_switches(1, wait)
        local wider = "anywhere"
        if policy ~= "slurm-tree" then
            local c, lv = wider_constraint()
            if lv then
                wider = "within one " .. lv .. ": " .. constrain_str(c)
            end
        end
        if explain then
            slurm.log_user("atoll: %d nodes, %s %s: one leaf switch for up to %d s, then %s",
                           n, level, fit, wait, wider)
        end
        return slurm.SUCCESS
    end
    if policy == "slurm-tree" then
        return slurm.SUCCESS  -- Slurm's tree alone: it cannot wait for a group or pod
    end
    -- preferred group or pod: constrained to the level now, widened later
    local c = constrain(cands)
    local then_ = mark_widen()
    if explain then
        slurm.log_user("atoll: %d nodes, %s %s: constraint %s for up to %d s (atoll-widen), then %s; at most %d leaf switches for up to %d s",
                       n, level, fit, c, wait, then_, job_desc.req_switch, leaf_wait)
    end
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end

slurm.log_info("atoll: job_submit.lua loaded")
return slurm.SUCCESS
