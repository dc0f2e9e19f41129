#include "planner/cost/objective_model.h"

#include <algorithm>

#include "planner/cost/checked_math.h"
#include "planner/cost/cost_model.h"
#include "planner/cost/time_model.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp {

int64_t ObjectiveModel::nodeTerm(const Node& n, const NodeSpace& space, const Parts& parts, const CallGeometry& geometry,
                                 const Placement& placement, DType type, DType computeType,
                                 NodeRuns runs) const {
  const auto elementBytes = static_cast<int64_t>(dtypeSize(type));
  switch (objective) {
    case Objective::Paper: {
      const NodeCost cost = nodeCost(space, parts, static_cast<std::size_t>(elementBytes));
      return checkedAdd(checkedMul(cost.join, runs.calls, "node cost"), checkedMul(cost.agg, runs.aggregation, "node cost"),
                        "node cost");
    }
    case Objective::Traffic: {
      const Traffic t = aggregationTraffic(geometry, placement.callRank, placement.blockOwner, devices, TrafficDetail::Total);
      return checkedMul(checkedMul(t.elements, elementBytes, "traffic bytes"), runs.aggregation, "traffic bytes");
    }
    case Objective::Time: {
      const Traffic t = aggregationTraffic(geometry, placement.callRank, placement.blockOwner, devices, TrafficDetail::PerRank, nodes());
      const int64_t compute = checkedMul(computePicoseconds(*machine, n, space, parts, 1, computeType), runs.calls, "estimated time");
      return checkedAdd(compute, checkedMul(phasePicoseconds(*machine, t, elementBytes), runs.aggregation, "estimated time"),
                        "estimated time");
    }
  }
  return 0;
}

int64_t ObjectiveModel::edgeTerm(const std::vector<int64_t>& bounds, const Parts& producerParts, const Parts& consumerParts,
                                 const BlockHomes* producer, const einrt::BlockGrid& consumer,
                                 const einrt::model::BlockNumbers& callBlock, const std::vector<int>& callRank,
                                 int64_t elementBytes) const {
  switch (objective) {
    case Objective::Paper: return repartitionCost(bounds, producerParts, consumerParts);
    case Objective::Traffic: {
      const Traffic t = repartitionTraffic(*producer, consumer, callBlock, callRank, devices, TrafficDetail::Total);
      return checkedMul(t.elements, elementBytes, "traffic bytes");
    }
    case Objective::Time: {
      const Traffic t = repartitionTraffic(*producer, consumer, callBlock, callRank, devices, TrafficDetail::PerRank, nodes());
      return phasePicoseconds(*machine, t, elementBytes);
    }
  }
  return 0;
}

int64_t ObjectiveModel::canonicalEdgeTerm(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                          const einrt::BlockGrid& consumer, const RankBlockCoordinates& read,
                                          int64_t elementBytes) const {
  if (objective == Objective::Time)
    return phasePicoseconds(*machine, canonicalRepartitionTraffic(producer, owned, consumer, read, devices, nodes()), elementBytes);
  return checkedMul(canonicalRepartitionElements(producer, owned, consumer, read), elementBytes, "traffic bytes");
}

int64_t ObjectiveModel::canonicalEdgeFloor(const std::vector<int64_t>& bounds, const Parts& producerParts, int64_t ownerStride,
                                           const Parts& consumerParts, int64_t readers, int64_t elementBytes) const {
  if (objective == Objective::Paper) return 0;
  const einrt::RankNodes n = nodes();
  const bool cluster = n.spansNodes(devices);
  const RepartitionFloor f =
      repartitionFloor(bounds, producerParts, consumerParts, readers, cluster ? n.ranksPerNode : 0, ownerStride, devices);
  if (objective == Objective::Time) return repartitionFloorPicoseconds(*machine, f, elementBytes, cluster, n.ranksPerNode);
  return checkedMul(f.elements, elementBytes, "traffic bytes");
}

int64_t ObjectiveModel::canonicalEdgeGroupFloor(const std::vector<int64_t>& bounds, const Parts& producerParts, int64_t ownerStride,
                                                const Parts& consumerParts, const einrt::model::BlockNumbers& readByRank,
                                                int64_t elementBytes) const {
  const int64_t floor =
      canonicalEdgeFloor(bounds, producerParts, ownerStride, consumerParts, static_cast<int64_t>(readByRank.size()), elementBytes);
  if (objective != Objective::Time) return floor;
  const Traffic first = firstGroupRepartitionTraffic(einrt::BlockGrid{bounds, producerParts}, ownerStride,
                                                     einrt::BlockGrid{bounds, consumerParts}, readByRank, devices, nodes());
  return std::max(floor, phasePicoseconds(*machine, first, elementBytes));
}

int64_t ObjectiveModel::total(const PlanCost& c) const {
  switch (objective) {
    case Objective::Traffic: return c.trafficBytes;
    case Objective::Paper: return c.paper;
    case Objective::Time: return c.timePs.value_or(0);
  }
  return c.trafficBytes;
}

bool ObjectiveModel::fits(const PlanCost& c) const { return !memLimitBytes || c.peakBytesPerDevice <= *memLimitBytes; }

ObjectiveModel::Key ObjectiveModel::key(const PlanCost& c) const {
  return {!fits(c), total(c), c.interNodeBytes, c.trafficBytes};
}

std::string ObjectiveModel::totalText(const PlanCost& c) const {
  switch (objective) {
    case Objective::Traffic: return std::to_string(c.trafficBytes) + " bytes of traffic";
    case Objective::Paper: return std::to_string(c.paper) + " (paper cost, elements)";
    case Objective::Time: return std::to_string(total(c)) + " ps estimated";
  }
  return "";
}

}  // namespace eindecomp
