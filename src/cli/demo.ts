import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';

export async function runDemo(_config: Config, _log: Logger): Promise<number> {
  throw new Error('demo: not implemented yet');
}
