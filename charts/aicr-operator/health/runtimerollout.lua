-- Argo CD health of a RuntimeRollout (operator.aicr.run), from its outcome label, else its
-- phase and kstatus conditions: resource.customizations.health.operator.aicr.run_RuntimeRollout.
-- Runs without Lua's string library, as Argo CD runs health checks by default.
local hs = { status = "Progressing", message = "Waiting for the operator to report status" }
local status = obj.status or {}
local phase = status.phase
if obj.metadata.labels ~= nil and obj.metadata.labels["operator.aicr.run/outcome"] ~= nil then
  phase = obj.metadata.labels["operator.aicr.run/outcome"]
end
if phase == nil or phase == "" then
  return hs
end
hs.message = "rollout " .. phase
if status.message ~= nil and status.message ~= "" then
  hs.message = status.message
end
-- Ended with nothing left to do: rolled out, replaced by a newer target, or its runtime is gone.
if phase == "Succeeded" or phase == "Superseded" or phase == "Orphaned" then
  hs.status = "Healthy"
  return hs
end
-- The transition did not happen; the runtime stalls until it is retried or its spec changes.
if phase == "Failed" or phase == "Expired" or phase == "Revoked" then
  hs.status = "Degraded"
  return hs
end
-- A spec the operator has not observed yet (an approval just given) is still Progressing.
local generation = obj.metadata.generation
if generation ~= nil and status.observedGeneration ~= nil and status.observedGeneration ~= generation then
  hs.message = "Waiting for the operator to observe generation " .. generation
  return hs
end
-- Waiting for a human: the set-once approval, or the acknowledgement of a manual step.
if phase == "AwaitingApproval" or phase == "AwaitingAcknowledgement" then
  hs.status = "Suspended"
  return hs
end
-- Pending, Progressing, Validating: the operator is working, unless it stalled.
for _, c in ipairs(status.conditions or {}) do
  if c.type == "Stalled" and c.status == "True" then
    hs.status = "Degraded"
    hs.message = (c.reason or "") .. ": " .. (c.message or "")
    return hs
  end
end
return hs
