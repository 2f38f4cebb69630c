// SPDX-License-Identifier: Apache-2.0
// The binary form of the ISA: header word + LSB-first packed payload, both derived from the
// per-opcode field lists of isa.def. Variable length keeps wide operands (40-bit address
// immediates, 64-bit li) encodable without a constant pool, while PayloadWords stays a fixed
// function of the opcode so the decoder can reject any length mismatch.
#include <algorithm>
#include <cstdint>
#include <string>

#include "compiler/target/isa.h"  // the functions defined here are declared there

namespace tilejit::target {
namespace {

constexpr int kRegBits = 5;

int EncodedBits(const FieldInfo& fi) {
  return fi.kind == FieldKind::kOpnd ? kRegBits + fi.imm_bits : fi.imm_bits;
}

uint64_t LowBits(int64_t v, int bits) {
  const uint64_t u = static_cast<uint64_t>(v);
  return bits >= 64 ? u : (u & ((uint64_t{1} << bits) - 1));
}

int64_t SignExtend(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((v ^ sign) - sign);
}

class BitWriter {
 public:
  explicit BitWriter(std::vector<uint64_t>& out) : out_(out) {}
  void Put(uint64_t value, int bits) {
    while (bits > 0) {
      if (used_ == 0) out_.push_back(0);
      const int take = std::min(bits, 64 - used_);
      const uint64_t part = LowBits(static_cast<int64_t>(value), take);
      out_.back() |= part << used_;
      used_ = (used_ + take) % 64;
      value = take >= 64 ? 0 : value >> take;
      bits -= take;
    }
  }

 private:
  std::vector<uint64_t>& out_;
  int used_ = 0;
};

class BitReader {
 public:
  explicit BitReader(std::span<const uint64_t> words) : words_(words) {}
  uint64_t Get(int bits) {
    uint64_t value = 0;
    int done = 0;
    while (done < bits) {
      const size_t word = pos_ / 64;
      const int offset = static_cast<int>(pos_ % 64);
      const int take = std::min(bits - done, 64 - offset);
      const uint64_t part = LowBits(static_cast<int64_t>(words_[word] >> offset), take);
      value |= part << done;
      done += take;
      pos_ += take;
    }
    return value;
  }
  // True if every bit after the current position is zero.
  bool RestIsZero() const {
    if (pos_ % 64 != 0 && (words_[pos_ / 64] >> (pos_ % 64)) != 0) return false;
    for (size_t w = (pos_ + 63) / 64; w < words_.size(); ++w) {
      if (words_[w] != 0) return false;
    }
    return true;
  }

 private:
  std::span<const uint64_t> words_;
  size_t pos_ = 0;
};

void PutField(BitWriter& w, const FieldInfo& fi, const FieldValue& v) {
  if (fi.kind == FieldKind::kReg) {
    w.Put(v.reg, kRegBits);
  } else if (fi.kind == FieldKind::kOpnd) {
    w.Put(v.reg, kRegBits);
    w.Put(LowBits(v.imm, fi.imm_bits), fi.imm_bits);
  } else {
    w.Put(LowBits(v.imm, fi.imm_bits), fi.imm_bits);
  }
}

FieldValue GetFieldBits(BitReader& r, const FieldInfo& fi) {
  FieldValue v;
  if (fi.kind == FieldKind::kReg) {
    v.reg = static_cast<uint8_t>(r.Get(kRegBits));
  } else if (fi.kind == FieldKind::kOpnd) {
    v.reg = static_cast<uint8_t>(r.Get(kRegBits));
    v.imm = SignExtend(r.Get(fi.imm_bits), fi.imm_bits);
  } else if (fi.kind == FieldKind::kImm && fi.lo < 0) {
    v.imm = SignExtend(r.Get(fi.imm_bits), fi.imm_bits);
  } else {
    v.imm = static_cast<int64_t>(r.Get(fi.imm_bits));
  }
  return v;
}

Status CheckBranch(const Instr& in, size_t index, size_t count) {
  if (in.op != Opcode::kJmp && in.op != Opcode::kBz && in.op != Opcode::kBnz) return Status::Ok();
  const int64_t target = static_cast<int64_t>(index) + in.off;
  if (target < 0 || target >= static_cast<int64_t>(count)) {
    return InvalidArgument("instruction " + std::to_string(index) + " (" +
                           std::string(OpcodeName(in.op)) + "): branch target " +
                           std::to_string(target) + " outside the program of " +
                           std::to_string(count) + " instructions");
  }
  return Status::Ok();
}

}  // namespace

int PayloadWords(Opcode op) {
  int bits = 0;
  for (FieldId f : GetOpcodeInfo(op).fields) bits += EncodedBits(GetFieldInfo(f));
  return (bits + 63) / 64;
}

Status Encode(const Instr& in, std::vector<uint64_t>& out) {
  TILEJIT_RETURN_IF_ERROR(Validate(in));
  const OpcodeInfo& info = GetOpcodeInfo(in.op);
  const uint64_t header = static_cast<uint64_t>(in.op) |
                          (static_cast<uint64_t>(PayloadWords(in.op)) << 8) |
                          (static_cast<uint64_t>(in.line) << 16);
  out.push_back(header);
  const size_t payload_start = out.size();
  BitWriter w(out);
  for (FieldId f : info.fields) PutField(w, GetFieldInfo(f), GetField(in, f));
  // BitWriter only appends words it touches; pad to the fixed count.
  while (out.size() - payload_start < static_cast<size_t>(PayloadWords(in.op))) out.push_back(0);
  return Status::Ok();
}

Result<Instr> Decode(std::span<const uint64_t> words, size_t* pos) {
  if (*pos >= words.size()) return Corruption("instruction stream truncated: missing header");
  const uint64_t header = words[*pos];
  const uint64_t opcode = header & 0xff;
  if (opcode >= static_cast<uint64_t>(kNumOpcodes)) {
    return Corruption("unknown opcode " + std::to_string(opcode) + " at word " +
                      std::to_string(*pos));
  }
  const Opcode op = static_cast<Opcode>(opcode);
  const uint64_t count = (header >> 8) & 0xff;
  if (count != static_cast<uint64_t>(PayloadWords(op))) {
    return Corruption(std::string(OpcodeName(op)) + " at word " + std::to_string(*pos) +
                      ": payload of " + std::to_string(count) + " words, expected " +
                      std::to_string(PayloadWords(op)));
  }
  if ((header >> 48) != 0) {
    return Corruption("reserved header bits set at word " + std::to_string(*pos));
  }
  if (words.size() - *pos - 1 < count) return Corruption("instruction stream truncated");
  Instr in;
  in.op = op;
  in.line = static_cast<uint32_t>((header >> 16) & 0xffffffff);
  BitReader r(words.subspan(*pos + 1, count));
  for (FieldId f : GetOpcodeInfo(op).fields) SetField(in, f, GetFieldBits(r, GetFieldInfo(f)));
  if (!r.RestIsZero()) {
    return Corruption(std::string(OpcodeName(op)) + ": nonzero padding bits");
  }
  if (Status s = Validate(in); !s.ok()) {
    return Corruption("malformed instruction at word " + std::to_string(*pos) + ": " + s.message());
  }
  *pos += 1 + count;
  return in;
}

Result<std::vector<uint64_t>> EncodeProgram(std::span<const Instr> program) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < program.size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(CheckBranch(program[i], i, program.size()));
    if (Status s = Encode(program[i], out); !s.ok()) {
      return s.WithContext("instruction " + std::to_string(i));
    }
  }
  return out;
}

Result<std::vector<Instr>> DecodeProgram(std::span<const uint64_t> words) {
  std::vector<Instr> program;
  size_t pos = 0;
  while (pos < words.size()) {
    Result<Instr> in = Decode(words, &pos);
    if (!in.ok()) return in.status();
    program.push_back(in.value());
  }
  for (size_t i = 0; i < program.size(); ++i) {
    if (Status s = CheckBranch(program[i], i, program.size()); !s.ok()) {
      return Corruption(s.message());
    }
  }
  return program;
}

}  // namespace tilejit::target
