import { readModelStoreContract } from '../test-support/read-model-store-contract';
import { createMemoryReadModels } from './memory';

readModelStoreContract('memory', async () => {
  const store = createMemoryReadModels();
  return { store, close: () => store.close() };
});
