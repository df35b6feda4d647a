// The registry (docs/product.md §2 /content/participants, also /content/registered): the members' table.
export const loadParticipantsPage = () => import('./ParticipantsPage');
export { registryActions, registryReducer } from './slice';
export { registrySaga } from './sagas';
