import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

/**
 * The E1 model shipped in the package: assets/e1-glove next to package.json (static GloVe
 * vectors, see its README). Kept apart from the encoder so the main thread can find it without
 * loading the native runtime.
 */
export function bundledE1ModelDir(): string {
  return join(packageRoot(), 'assets', 'e1-glove');
}

/** False in a trimmed install without the asset: E1 then falls back to the model-free encoder. */
export function hasBundledE1Model(): boolean {
  return existsSync(join(bundledE1ModelDir(), 'model.onnx'));
}
