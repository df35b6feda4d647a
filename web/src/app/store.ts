import { combineReducers, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import user from '../features/user/slice';
import mainData from '../features/site/mainDataSlice';
import users from '../features/site/usersSlice';
import connectedUsers from '../features/site/connectedUsersSlice';
import loading from '../features/site/loadingSlice';
import updateMainData from '../features/site/updateMainDataSlice';
import chat from '../features/chat/slice';
import globalPost from '../features/globalPost/slice';
import popup from '../features/ads/popupSlice';
import { checkReducer as check, checksecondsReducer as checkseconds } from '../features/check/slice';
import sidebar from '../features/ui/sidebarSlice';
import admin from '../features/admin/slice';
import purchase from '../features/passes/purchaseSlice';
import { NON_SERIALIZABLE_PURCHASE_ACTIONS } from '../features/passes/purchaseActions';
import { rootSaga } from './rootSaga';
import { STORAGE_KEYS, type Services } from './services';

export const rootReducer = combineReducers({
  user,
  mainData,
  users,
  connectedUsers,
  chat,
  globalPost,
  popup,
  sidebar,
  check,
  checkseconds,
  loading,
  updateMainData,
  admin,
  purchase,
});

export type RootState = ReturnType<typeof rootReducer>;

/** What local storage says at start (spec §4: cookie acceptance, the stored user and admin ids). */
function stateFromStorage(services: Services): Partial<RootState> {
  const base = rootReducer(undefined, { type: '@@init' });
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
export type AppDispatch = AppStore['dispatch'];
