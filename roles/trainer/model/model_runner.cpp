#include "roles/trainer/model/model_runner.h"

#include <cstring>
#include <fstream>

#include "roles/trainer/graph_ops/graph_ops.h"
#include "roles/trainer/trainer_util.h"

namespace dg {

Result<torch::jit::Module> LoadModel(const std::string& path) {
  static_cast<void>(GraphOpsRegistered());  // models may call torch.ops.distgnn.*
  if (!std::ifstream(path).good())
    return Status::NotFound("model file " + path + ": not found or not readable");
  torch::jit::Module module;
  try {
    module = torch::jit::load(path);
  } catch (const std::exception& e) {
    return Status::InvalidArgument("model file " + path +
                                   ": not a TorchScript archive (save it with torch.jit.save "
                                   "or `distgnn model export`): " + FirstLine(e.what()));
  }
  DG_RETURN_IF_ERROR(CheckModelContract(module, path));
  return module;
}

namespace {

c10::TypePtr BlocksType(bool typed) {
  if (typed)
    return c10::ListType::create(c10::TupleType::create({c10::TensorType::get(), c10::TensorType::get(),
                                                         c10::TensorType::get(), c10::TensorType::get(),
                                                         c10::IntType::get()}));
  return c10::ListType::create(
      c10::TupleType::create({c10::TensorType::get(), c10::TensorType::get(), c10::IntType::get()}));
}

}  // namespace

bool IsTypedModel(const torch::jit::Module& module) {
  auto method = module.find_method("forward");
  if (!method) return false;
  const auto& args = method->function().getSchema().arguments();
  return args.size() == 3 && *args[2].type() == *BlocksType(true);
}

Status CheckModelContract(const torch::jit::Module& module, const std::string& path) {
  const char kWant[] =
      "forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor, or for typed graphs "
      "forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, Tensor, Tensor, int]]) -> Tensor";
  auto method = module.find_method("forward");
  if (!method)
    return Status::InvalidArgument("model file " + path + ": has no forward method (expected " +
                                   kWant + ")");
  const c10::FunctionSchema& schema = method->function().getSchema();
  std::ostringstream found;
  found << schema;
  auto fail = [&](const std::string& what) {
    return Status::InvalidArgument("model file " + path + ": forward does not fit the model contract: " +
                                   what + " (found " + found.str() + ", expected " + kWant + ")");
  };
  const auto& args = schema.arguments();
  if (args.size() != 3)
    return fail("it takes " + std::to_string(args.size() > 0 ? args.size() - 1 : 0) +
                " arguments, expected 2 (x, blocks)");
  if (!args[1].type()->isSubtypeOf(*c10::TensorType::get()))
    return fail("argument 1 '" + args[1].name() + "' has type " + args[1].type()->annotation_str() +
                ", expected Tensor");
  if (*args[2].type() != *BlocksType(false) && *args[2].type() != *BlocksType(true))
    return fail("argument 2 '" + args[2].name() + "' has type " + args[2].type()->annotation_str() +
                ", expected List[Tuple[Tensor, Tensor, int]] (or, typed, List[Tuple[Tensor, Tensor, Tensor, "
                "Tensor, int]])");
  if (schema.returns().size() != 1 ||
      !schema.returns()[0].type()->isSubtypeOf(*c10::TensorType::get()))
    return fail("it must return one Tensor");
  return Status::OK();
}

bool HasForwardLayer(const torch::jit::Module& module) {
  return module.find_method("forward_layer").has_value();
}

bool HasForwardLayerAgg(const torch::jit::Module& module) {
  return module.find_method("forward_layer_agg").has_value();
}

Result<bool> HasForwardAgg(const torch::jit::Module& module, const std::string& path) {
  auto method = module.find_method("forward_agg");
  if (!method) return false;
  const c10::FunctionSchema& schema = method->function().getSchema();
  const auto& args = schema.arguments();
  const bool typed = IsTypedModel(module);
  const bool fits = args.size() == 4 && args[1].type()->isSubtypeOf(*c10::TensorType::get()) &&
                    args[2].type()->isSubtypeOf(*c10::TensorType::get()) && *args[3].type() == *BlocksType(typed) &&
                    schema.returns().size() == 1 &&
                    schema.returns()[0].type()->isSubtypeOf(*c10::TensorType::get());
  if (fits) return true;
  std::ostringstream found;
  found << schema;
  return Status::InvalidArgument(
      "model file " + path + ": forward_agg does not fit the model contract (found " + found.str() + ", expected " +
      (typed ? "forward_agg(self, x: Tensor, neigh_mean: Tensor, blocks: List[Tuple[Tensor, Tensor, Tensor, Tensor, "
               "int]]) -> Tensor)"
             : "forward_agg(self, x_dst: Tensor, neigh_mean: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> "
               "Tensor)"));
}

Result<std::vector<int64_t>> AggRelations(const torch::jit::Module& module, const std::string& path) {
  if (!module.hasattr("agg_relations"))
    return Status::InvalidArgument("model file " + path +
                                   ": a typed forward_agg needs the attribute agg_relations: List[int] (the relations "
                                   "whose means it takes from neigh_mean)");
  std::vector<int64_t> out;
  try {
    for (int64_t r : module.attr("agg_relations").toIntList()) out.push_back(r);
  } catch (const std::exception&) {
    return Status::InvalidArgument("model file " + path + ": agg_relations is not a List[int]");
  }
  return out;
}

torch::Tensor ArrayTensor(const Array& a) {
  c10::ScalarType t;
  switch (a.dtype) {
    case DType::kFloat32: t = torch::kFloat32; break;
    case DType::kFloat64: t = torch::kFloat64; break;
    case DType::kInt64: t = torch::kInt64; break;
    case DType::kInt32: t = torch::kInt32; break;
    case DType::kInt8: t = torch::kInt8; break;
    case DType::kUInt8: t = torch::kUInt8; break;
    default: t = torch::kBool; break;
  }
  std::shared_ptr<void> holder = a.holder;
  return torch::from_blob(a.data, a.shape, [holder](void*) {}, torch::TensorOptions().dtype(t));
}

Array TensorArray(const torch::Tensor& t) {
  const DType dt = t.scalar_type() == torch::kInt64 ? DType::kInt64 : DType::kFloat32;
  torch::Tensor c = t.detach().to(dt == DType::kInt64 ? torch::kInt64 : torch::kFloat32).contiguous();
  Array a = Array::Zeros(dt, std::vector<int64_t>(c.sizes().begin(), c.sizes().end()));
  std::memcpy(a.data, c.data_ptr(), a.nbytes());
  return a;
}

torch::Tensor VectorTensor(const std::vector<int64_t>& v) {
  return torch::from_blob(const_cast<int64_t*>(v.data()), {static_cast<int64_t>(v.size())},
                          torch::kInt64);
}

torch::Tensor VectorTensor(const IdBuffer& v) {
  return torch::from_blob(const_cast<int64_t*>(v.data()), {static_cast<int64_t>(v.size())},
                          torch::kInt64);
}

torch::IValue BlockValue(const Block& b) {
  return c10::ivalue::Tuple::create(
      {torch::IValue(VectorTensor(b.indptr)), torch::IValue(VectorTensor(b.indices)),
       torch::IValue(b.num_dst)});
}

torch::IValue TypedBlockValue(const Block& b, const std::vector<int64_t>& src_ntypes) {
  DG_CHECK(static_cast<int64_t>(src_ntypes.size()) >= b.num_src);
  torch::Tensor ntype = torch::from_blob(const_cast<int64_t*>(src_ntypes.data()), {b.num_src}, torch::kInt64);
  return c10::ivalue::Tuple::create({torch::IValue(VectorTensor(b.indptr)), torch::IValue(VectorTensor(b.indices)),
                                     torch::IValue(VectorTensor(b.etypes)), torch::IValue(ntype),
                                     torch::IValue(b.num_dst)});
}

torch::IValue BlocksValue(const MiniBatch& batch) {
  const bool typed = !batch.input_ntypes.empty();
  c10::impl::GenericList list(BlocksType(typed)->castRaw<c10::ListType>()->getElementType());
  for (const auto& b : batch.blocks) list.push_back(typed ? TypedBlockValue(b, batch.input_ntypes) : BlockValue(b));
  return list;
}

}  // namespace dg
