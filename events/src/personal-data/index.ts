// Members' personal data at rest (Node only): field encryption, key stores, the event-store decorator.
export { decryptField, encryptField, ENCRYPTED_PREFIX, isEncrypted, PersonalDataError } from './cipher';
export { CachedKeyStore, MemoryKeyStore, type KeyStore, type KeysForOptions } from './key-store';
export { FileKeyStore } from './file-key-store';
export { PostgresKeyStore } from './postgres-key-store';
export { decryptEvents, EncryptingEventStore, encryptEvent } from './encrypting-store';
export { EMAIL_STREAM_KEY_ID, installationKey } from './installation-keys';
export { defaultKeysDir, openKeyStore, openPersonalDataEventStore, type OpenPersonalDataOptions } from './open';
export { ERASED_VALUE, ERASURE_EVENT, personalFieldsByType, personalFieldsOf, type PersonalFields } from '../rules/personal-data';
