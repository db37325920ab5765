import { knownModels } from '../provider/model-catalog.js';
import { ServeError } from './serve-error.js';

/** Refuses a model the catalog does not list (`unknown_model`, 400), naming the ones it does. */
export function checkModel(model: string): void {
  const known = knownModels();
  if (!known.includes(model)) {
    throw new ServeError('unknown_model', `no model ${model} in the catalog; known: ${known.join(', ')}`);
  }
}
