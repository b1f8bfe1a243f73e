import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * `context-graph models`: downloadable E1 models, pinned to a commit and checked file by file.
 * A model pulled here is exactly the bytes listed below, so `onnx:<name>:<sha12>` model ids are
 * reproducible across machines.
 */

// Here rather than in onnx.ts: the CLI imports this module, and onnx.ts loads the native runtime.
export const MODEL_FILE = 'model.onnx';
export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';

export interface ModelFile {
  /** Path inside the hub repository at `revision`. */
  remotePath: string;
  /** Name inside the local model folder (what OnnxEncoder reads). */
  localName: string;
  /**
   * Expected sha256, or null when no authoritative value is known: then the download is checked
   * by size (when known) and the computed sha256 is recorded in manifest.json, so later pulls
   * and `models status` detect a change.
   */
  sha256: string | null;
  size: number | null;
}

export interface ModelSpec {
  name: string;
  description: string;
  /** Hugging Face repository, owner/name. */
  repo: string;
  /** A full commit id: `main` moves, a commit does not. */
  revision: string;
  dim: number;
  license: string;
  files: ModelFile[];
}

/*
 * all-MiniLM-L6-v2 at commit c9745ed1d9f207416be6d2e6f8de32d1f16199bf. The sha256 values are the
 * ones independent projects pin for this commit (the Git LFS oid of onnx/model.onnx, and the
 * content hash of the non-LFS tokenizer.json / tokenizer_config.json); several unrelated
 * repositories carry the same values and sizes (90,405,214 and 466,247 bytes).
 */
export const KNOWN_MODELS: readonly ModelSpec[] = Object.freeze([
  {
    name: 'all-MiniLM-L6-v2',
    description: 'sentence-transformers/all-MiniLM-L6-v2, ONNX fp32 export, 384 dims, English, ~90 MB',
    repo: 'sentence-transformers/all-MiniLM-L6-v2',
    revision: 'c9745ed1d9f207416be6d2e6f8de32d1f16199bf',
    dim: 384,
    license: 'Apache-2.0',
    files: [
      {
        remotePath: 'onnx/model.onnx',
        localName: MODEL_FILE,
        sha256: '6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452',
        size: 90_405_214,
      },
      {
        remotePath: 'tokenizer.json',
        localName: TOKENIZER_FILE,
        sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
        size: 466_247,
      },
      {
        remotePath: 'tokenizer_config.json',
        localName: TOKENIZER_CONFIG_FILE,
        sha256: 'acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b',
        size: 350,
      },
    ],
  },
]);

export const DEFAULT_BASE_URL = 'https://huggingface.co';
export const MANIFEST_FILE = 'manifest.json';

export function listModels(): ModelSpec[] {
  return [...KNOWN_MODELS];
}

export function findModel(name: string): ModelSpec | undefined {
  const lower = name.toLowerCase();
  return KNOWN_MODELS.find((m) => m.name.toLowerCase() === lower || m.repo.toLowerCase() === lower);
}

export function fileUrl(model: ModelSpec, file: ModelFile, baseUrl: string = DEFAULT_BASE_URL): string {
  return `${baseUrl.replace(/\/+$/, '')}/${model.repo}/resolve/${model.revision}/${file.remotePath}`;
}

export interface PullProgress {
  model: string;
  file: string;
  /** downloading: bytes so far; done: verified and in place; skipped: already present and valid. */
  phase: 'downloading' | 'done' | 'skipped';
  bytes: number;
  total: number | null;
}

export interface PullOptions {
  fetch?: typeof globalThis.fetch;
  onProgress?: (p: PullProgress) => void;
  /** Replaces https://huggingface.co (mirrors, tests). */
  baseUrl?: string;
  signal?: AbortSignal;
}

export interface PulledFile {
  name: string;
  sha256: string;
  size: number;
  /** Whether the sha256 was checked against the table (false: recorded on first download). */
  verified: boolean;
  status: 'downloaded' | 'skipped';
}

export interface PullResult {
  dir: string;
  model: string;
  files: PulledFile[];
}

interface Manifest {
  model: string;
  repo: string;
  revision: string;
  files: Record<string, { sha256: string; size: number; url: string; verified: boolean }>;
}

export class ModelDownloadError extends Error {
  override name = 'ModelDownloadError';
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function sha256Of(path: string): Promise<{ sha256: string; size: number } | null> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return null;
  return { sha256: await sha256File(path), size: info.size };
}

async function readManifest(dir: string): Promise<Manifest | null> {
  try {
    return JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as Manifest;
  } catch {
    return null;
  }
}

/**
 * Downloads `model` into `<targetRoot>/<model name>`. Each file streams into `<file>.part` while
 * it is hashed, is checked (sha256, else size), and only then renamed into place, so a crash or
 * a bad download never leaves a file that looks complete. Files already present with the right
 * hash are not downloaded again.
 */
export async function pullModel(model: string | ModelSpec, targetRoot: string, opts: PullOptions = {}): Promise<PullResult> {
  const spec = typeof model === 'string' ? findModel(model) : model;
  if (!spec) {
    throw new ModelDownloadError(`unknown model ${JSON.stringify(model)}; known models: ${KNOWN_MODELS.map((m) => m.name).join(', ')}`);
  }
  const doFetch = opts.fetch ?? globalThis.fetch;
  const dir = resolve(targetRoot, spec.name);
  await mkdir(dir, { recursive: true });
  const previous = await readManifest(dir);
  const manifest: Manifest = { model: spec.name, repo: spec.repo, revision: spec.revision, files: {} };
  const files: PulledFile[] = [];

  for (const file of spec.files) {
    const target = join(dir, file.localName);
    const url = fileUrl(spec, file, opts.baseUrl);
    // Without a pinned hash, the hash recorded at the first download (same revision) is the reference.
    const recorded = previous?.revision === spec.revision ? previous.files[file.localName] : undefined;
    const expected = file.sha256 ?? recorded?.sha256 ?? null;

    const existing = expected ? await sha256Of(target) : null;
    if (existing && existing.sha256 === expected && (file.size === null || existing.size === file.size)) {
      const verified = file.sha256 !== null;
      files.push({ name: file.localName, ...existing, verified, status: 'skipped' });
      manifest.files[file.localName] = { ...existing, url, verified };
      opts.onProgress?.({ model: spec.name, file: file.localName, phase: 'skipped', bytes: existing.size, total: file.size });
      continue;
    }

    const got = await download(doFetch, url, `${target}.part`, file, spec.name, opts);
    if (expected !== null && got.sha256 !== expected) {
      await unlink(`${target}.part`).catch(() => {});
      throw new ModelDownloadError(
        `sha256 mismatch for ${file.localName} of ${spec.name} from ${url}: expected ${expected}, got ${got.sha256}` +
          (file.sha256 === null ? ` (the hash recorded in ${join(dir, MANIFEST_FILE)} at the first download)` : '') +
          '; the partial file was deleted',
      );
    }
    await rename(`${target}.part`, target);
    const verified = file.sha256 !== null;
    files.push({ name: file.localName, ...got, verified, status: 'downloaded' });
    manifest.files[file.localName] = { ...got, url, verified };
    opts.onProgress?.({ model: spec.name, file: file.localName, phase: 'done', bytes: got.size, total: file.size });
  }

  const manifestPath = join(dir, MANIFEST_FILE);
  await writeFile(`${manifestPath}.part`, JSON.stringify(manifest, null, 2) + '\n');
  await rename(`${manifestPath}.part`, manifestPath);
  return { dir, model: spec.name, files };
}

async function download(
  doFetch: typeof globalThis.fetch,
  url: string,
  partPath: string,
  file: ModelFile,
  model: string,
  opts: PullOptions,
): Promise<{ sha256: string; size: number }> {
  await mkdir(dirname(partPath), { recursive: true });
  const fh = await open(partPath, 'w');
  const hash = createHash('sha256');
  let size = 0;
  try {
    const res = await doFetch(url, { redirect: 'follow', signal: opts.signal ?? null });
    if (!res.ok || !res.body) throw new ModelDownloadError(`download of ${file.localName} failed: HTTP ${res.status} ${res.statusText} from ${url}`);
    const header = Number(res.headers.get('content-length'));
    const total = file.size ?? (Number.isFinite(header) && header > 0 ? header : null);
    let lastReport = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      await fh.write(chunk);
      size += chunk.byteLength;
      if (file.size !== null && size > file.size) {
        throw new ModelDownloadError(`${file.localName} from ${url} is larger than the expected ${file.size} bytes`);
      }
      // Progress per ~1 MB: a call per network chunk would flood the log.
      if (size - lastReport >= 1 << 20) {
        lastReport = size;
        opts.onProgress?.({ model, file: file.localName, phase: 'downloading', bytes: size, total });
      }
    }
    if (file.size !== null && size !== file.size) {
      throw new ModelDownloadError(`${file.localName} from ${url} has ${size} bytes, expected ${file.size}`);
    }
    await fh.sync();
    await fh.close();
  } catch (err) {
    await fh.close().catch(() => {});
    await unlink(partPath).catch(() => {});
    if (err instanceof ModelDownloadError) throw new ModelDownloadError(`${err.message}; the partial file was deleted`);
    throw new ModelDownloadError(`download of ${file.localName} from ${url} failed: ${(err as Error).message}; the partial file was deleted`);
  }
  return { sha256: hash.digest('hex'), size };
}

export interface ModelFileStatus {
  name: string;
  required: boolean;
  present: boolean;
  size: number | null;
}

export interface ModelStatus {
  dir: string;
  /** model.onnx and tokenizer.json are present: OnnxEncoder can load the folder. */
  ready: boolean;
  present: string[];
  missing: string[];
  files: ModelFileStatus[];
  /** From manifest.json when the folder was made by `models pull`. */
  model: string | null;
  revision: string | null;
}

/** What a model folder holds; cheap (no hashing), for `context-graph models status`. */
export async function modelStatus(modelDir: string): Promise<ModelStatus> {
  const dir = resolve(modelDir);
  const wanted: Array<{ name: string; required: boolean }> = [
    { name: MODEL_FILE, required: true },
    { name: TOKENIZER_FILE, required: true },
    { name: TOKENIZER_CONFIG_FILE, required: false },
  ];
  const files: ModelFileStatus[] = [];
  for (const w of wanted) {
    const info = await stat(join(dir, w.name)).catch(() => null);
    files.push({ ...w, present: !!info?.isFile(), size: info?.isFile() ? info.size : null });
  }
  const manifest = await readManifest(dir);
  return {
    dir,
    ready: files.every((f) => f.present || !f.required),
    present: files.filter((f) => f.present).map((f) => f.name),
    missing: files.filter((f) => !f.present && f.required).map((f) => f.name),
    files,
    model: manifest?.model ?? null,
    revision: manifest?.revision ?? null,
  };
}
