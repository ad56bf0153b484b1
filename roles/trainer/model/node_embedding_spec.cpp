#include "roles/trainer/model/node_embedding_spec.h"

namespace dg {

Result<NodeEmbeddingOptions> NodeEmbeddingOptionsFrom(const EmbeddingSpec& e, uint64_t seed) {
  DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo,
                      MakeNodeEmbeddingOptions(e.dim, e.optimizer, e.lr_or_default(), seed, e.weight_decay_or_default()));
  eo.name = e.name;
  eo.init_scale = e.init_scale_or_default();
  eo.persistent = e.persistent;
  return eo;
}

}  // namespace dg
