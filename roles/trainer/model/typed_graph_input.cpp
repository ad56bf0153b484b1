#include "roles/trainer/model/typed_graph_input.h"

#include <utility>

namespace dg {

// The dataset is read and checked by LoadTypedDataset (the same reader the
// partitioner uses); TypedGraphInputOf moves its arrays into TypedInMemoryGraph's input.
Result<TypedGraphInput> LoadTypedGraphInput(const std::string& dir, bool undirected, int64_t* num_classes) {
  DG_ASSIGN_OR_RETURN(TypedDataset ds, LoadTypedDataset(dir, undirected));
  if (num_classes && ds.num_classes > 0) *num_classes = ds.num_classes;
  return TypedGraphInputOf(std::move(ds), dir);
}

}  // namespace dg
