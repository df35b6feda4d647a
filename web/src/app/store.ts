import { combineReducers, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { STORAGE_KEYS, type Services } from '../lib/services';
import { popupReducer } from '../lib/state/popup';
import { sessionReducer } from '../lib/state/session';
import { loadingReducer, mainDataReducer, updateMainDataReducer } from '../lib/state/site';
import type { AppDispatch, RootState } from '../lib/store-types';
import { adminReducer, timeMachineReducer } from '../features/admin';
import { chatReducer } from '../features/chat';
import { myDataReducer } from '../features/my-data';
import { passwordResetReducer } from '../features/password-reset';
import { checkReducer, checksecondsReducer } from '../features/free-points';
import { NON_SERIALIZABLE_PURCHASE_ACTIONS, purchaseReducer } from '../features/points-purchase';
import { progressReducer } from '../features/progress';
import { rankingReducer } from '../features/ranking';
import { registryReducer } from '../features/registry';
import { connectedUsersReducer, globalPostReducer, sidebarReducer } from '../features/page-frame';
import { rootSaga } from './root-saga';

export type { AppDispatch, RootState };

/** The slices of docs/product.md §3: the shared ones from lib/state, the rest each from its feature. */
export const rootReducer = combineReducers({
  user: sessionReducer,
  mainData: mainDataReducer,
  users: combineReducers({ ranking: rankingReducer, registry: registryReducer }),
  connectedUsers: connectedUsersReducer,
  chat: chatReducer,
  globalPost: globalPostReducer,
  popup: popupReducer,
  sidebar: sidebarReducer,
  check: checkReducer,
  checkseconds: checksecondsReducer,
  loading: loadingReducer,
  updateMainData: updateMainDataReducer,
  admin: adminReducer,
  timeMachine: timeMachineReducer,
  purchase: purchaseReducer,
  myData: myDataReducer,
  passwordReset: passwordResetReducer,
  progress: progressReducer,
});

/**
 * The state before anything is known about the visitor (no stored ids, cookie not accepted, no
 * live figures): the build-time HTML is rendered from it, and the client's hydration reads it too
 * (react-redux's serverState), so both produce the same markup whatever the store holds by then.
 */
export const guestState = (): RootState => rootReducer(undefined, { type: '@@init' });

/** What local storage says at start (docs/product.md §4: cookie acceptance, the stored user and admin ids). */
function stateFromStorage(services: Services): Partial<RootState> {
  const base = guestState();
  return {
    user: { ...base.user, storedId: services.storage.get(STORAGE_KEYS.userId) ?? '' },
    admin: { ...base.admin, storedId: services.storage.get(STORAGE_KEYS.adminId) ?? '' },
    popup: { ...base.popup, acceptedCookie: services.storage.get(STORAGE_KEYS.acceptedCookie) === 'true' },
  };
}

export function createAppStore(services: Services, preloadedState?: Partial<RootState>) {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    preloadedState: { ...stateFromStorage(services), ...preloadedState },
    middleware: (getDefault) =>
      getDefault({
        thunk: false,
        // The claim carries the chosen image File to the saga that uploads it.
        // The payment buttons' actions carry the promise callbacks PayPal waits on.
        serializableCheck: { ignoredActions: ['user/claimRequested', ...NON_SERIALIZABLE_PURCHASE_ACTIONS] },
      }).concat(sagaMiddleware),
  });
  const task = sagaMiddleware.run(rootSaga, services);
  return Object.assign(store, { rootTask: task });
}

export type AppStore = ReturnType<typeof createAppStore>;

// Compile-time checks: the reducers give exactly the RootState the features declare
// (lib/store-types.ts), and the features' AppDispatch is this store's dispatch.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type _StateMatches = Assert<Same<ReturnType<typeof rootReducer>, RootState>>;
type _DispatchFits = Assert<AppStore['dispatch'] extends AppDispatch ? true : false>;
