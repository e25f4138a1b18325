/**
 * A tiny ONNX writer for tests: encodes a `ModelProto` (protobuf wire format, only the fields a
 * small graph needs) so tests can build test-double models in memory instead of shipping
 * weights. Field numbers follow onnx/onnx.proto3.
 *
 * @module
 */

/** ONNX `TensorProto.DataType` values used here. */
export const OnnxType = { FLOAT: 1, INT64: 7 } as const;

/** A graph input or output: a tensor of `elemType` with fixed (number) or symbolic (string) dims; no `shape` leaves it undeclared. */
export interface OnnxValueInfo {
  name: string;
  elemType: number;
  shape?: ReadonlyArray<number | string>;
}

/** A node attribute: an int, a list of ints, or a float. */
export type OnnxAttribute =
  { name: string; int: number } | { name: string; ints: readonly number[] } | { name: string; float: number };

export interface OnnxNode {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  attributes?: readonly OnnxAttribute[];
}

/** A float32 constant (initializer). */
export interface OnnxInitializer {
  name: string;
  dims: readonly number[];
  values: Float32Array;
}

export interface OnnxGraph {
  name: string;
  inputs: readonly OnnxValueInfo[];
  outputs: readonly OnnxValueInfo[];
  nodes: readonly OnnxNode[];
  initializers?: readonly OnnxInitializer[];
  /** Default-domain opset. Default 13. */
  opset?: number;
  /** Default 7 (the IR version of opset 13). */
  irVersion?: number;
}

/** Protobuf wire-format writer (varint, 64-bit little endian, length-delimited, 32-bit). */
class ProtoWriter {
  private readonly bytes: number[] = [];

  private varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.bytes.push(Number(v));
  }

  private tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  int(field: number, value: number): this {
    this.tag(field, 0);
    this.varint(value);
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.bytes.push(...b);
    return this;
  }

  bytesField(field: number, value: Uint8Array): this {
    this.tag(field, 2);
    this.varint(value.length);
    for (const x of value) this.bytes.push(x);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytesField(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytesField(field, inner.finish());
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

function valueInfo(w: ProtoWriter, v: OnnxValueInfo): void {
  // ValueInfoProto { name = 1; type = 2 } → TypeProto { tensor_type = 1 } → { elem_type = 1; shape = 2 }
  w.string(1, v.name).message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, v.elemType);
      if (v.shape) {
        const dims = v.shape;
        tensor.message(2, (shape) => {
          for (const d of dims) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
        });
      }
    }),
  );
}

function attribute(w: ProtoWriter, a: OnnxAttribute): void {
  // AttributeProto { name = 1; f = 2; i = 3; ints = 8; type = 20 } with AttributeType FLOAT 1, INT 2, INTS 7.
  w.string(1, a.name);
  if ('int' in a) w.int(3, a.int).int(20, 2);
  else if ('ints' in a) {
    for (const x of a.ints) w.int(8, x);
    w.int(20, 7);
  } else w.float(2, a.float).int(20, 1);
}

/**
 * The serialized model, ready for `InferenceSession.create(bytes)`.
 *
 * @example
 * const bytes = encodeOnnxModel({ name: 'mean', opset: 13,
 *   inputs: [{ name: 'x', elemType: OnnxType.FLOAT, shape: ['B', 'T', 80] }],
 *   outputs: [{ name: 'y', elemType: OnnxType.FLOAT, shape: ['B', 80] }],
 *   nodes: [{ opType: 'ReduceMean', inputs: ['x'], outputs: ['y'], attributes: [{ name: 'axes', ints: [1] }, { name: 'keepdims', int: 0 }] }] });
 */
export function encodeOnnxModel(graph: OnnxGraph): Uint8Array {
  const model = new ProtoWriter();
  // ModelProto { ir_version = 1; producer_name = 2; graph = 7; opset_import = 8 }
  model.int(1, graph.irVersion ?? 7).string(2, 'multicam-test');
  model.message(7, (g) => {
    // GraphProto { node = 1; name = 2; initializer = 5; input = 11; output = 12 }
    graph.nodes.forEach((n, i) =>
      g.message(1, (node) => {
        // NodeProto { input = 1; output = 2; name = 3; op_type = 4; attribute = 5 }
        for (const x of n.inputs) node.string(1, x);
        for (const x of n.outputs) node.string(2, x);
        node.string(3, `${n.opType}_${i}`).string(4, n.opType);
        for (const a of n.attributes ?? []) node.message(5, (attr) => attribute(attr, a));
      }),
    );
    g.string(2, graph.name);
    for (const init of graph.initializers ?? []) {
      // TensorProto { dims = 1; data_type = 2; name = 8; raw_data = 9 }
      g.message(5, (t) => {
        for (const d of init.dims) t.int(1, d);
        t.int(2, OnnxType.FLOAT).string(8, init.name);
        t.bytesField(9, new Uint8Array(init.values.buffer, init.values.byteOffset, init.values.byteLength));
      });
    }
    for (const v of graph.inputs) g.message(11, (x) => valueInfo(x, v));
    for (const v of graph.outputs) g.message(12, (x) => valueInfo(x, v));
  });
  // OperatorSetIdProto { domain = 1; version = 2 }: the default domain is the empty string.
  model.message(8, (op) => op.string(1, '').int(2, graph.opset ?? 13));
  return model.finish();
}

/**
 * A test double of a WeSpeaker-style speaker-embedding model: input `feats` [B, T, 80]
 * (mean-normalised fbank), output `embs` [B, 80] = the per-bin standard deviation over the
 * frames, sqrt(mean(x²)). With the fbank mean removed per window, this is how much each mel
 * band moves: crude, but it differs between voices and needs no weights.
 */
export function fbankSpreadEmbeddingModel(
  options: { inputName?: string; outputName?: string; bins?: number } = {},
): Uint8Array {
  const bins = options.bins ?? 80;
  const input = options.inputName ?? 'feats';
  const output = options.outputName ?? 'embs';
  return encodeOnnxModel({
    name: 'fbank-spread-test-double',
    opset: 13,
    inputs: [{ name: input, elemType: OnnxType.FLOAT, shape: ['B', 'T', bins] }],
    outputs: [{ name: output, elemType: OnnxType.FLOAT, shape: ['B', bins] }],
    nodes: [
      { opType: 'Mul', inputs: [input, input], outputs: ['squared'] },
      {
        opType: 'ReduceMean',
        inputs: ['squared'],
        outputs: ['meanSquare'],
        attributes: [
          { name: 'axes', ints: [1] },
          { name: 'keepdims', int: 0 },
        ],
      },
      { opType: 'Sqrt', inputs: ['meanSquare'], outputs: [output] },
    ],
  });
}
