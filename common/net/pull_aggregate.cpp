#include "common/net/pull_aggregate.h"

#include "common/net/messages.h"

namespace dg {

void EncodePullAggregate(Encoder* e, const std::string& name, const Array& ids) {
  e->String(name);
  e->ArrayRef(ids);
}

Result<PullAggregateRequest> DecodePullAggregate(const Frame& f) {
  PullAggregateRequest r;
  Decoder d = f.decoder("PULL_AGGREGATE");
  r.name = d.String();
  r.ids = d.Ids();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckTensorName("PULL_AGGREGATE", r.name));
  return r;
}

}  // namespace dg
