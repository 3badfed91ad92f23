-- Argo CD health of a ClusterRuntime (operator.aicr.run), from the kstatus conditions the
-- operator writes: resource.customizations.health.operator.aicr.run_ClusterRuntime.
-- Runs without Lua's string library, as Argo CD runs health checks by default.
local hs = { status = "Progressing", message = "Waiting for the operator to report status" }
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
-- As kstatus: a spec the operator has not observed yet is still Progressing.
local generation = obj.metadata.generation
if generation ~= nil and obj.status.observedGeneration ~= nil and obj.status.observedGeneration ~= generation then
  hs.message = "Waiting for the operator to observe generation " .. generation
  return hs
end
local conditions = {}
for _, c in ipairs(obj.status.conditions) do
  conditions[c.type] = c
end
local function text(c)
  if c.message ~= nil and c.message ~= "" then
    return (c.reason or "") .. ": " .. c.message
  end
  return c.reason or ""
end
local stalled, reconciling, ready = conditions["Stalled"], conditions["Reconciling"], conditions["Ready"]
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = text(stalled)
  return hs
end
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = text(reconciling)
  return hs
end
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = text(ready)
  return hs
end
if ready ~= nil and (ready.reason == "Paused" or ready.reason == "EngineSuspended") then
  hs.status = "Suspended"
  hs.message = text(ready)
  return hs
end
if ready ~= nil then
  hs.message = text(ready)
end
return hs
