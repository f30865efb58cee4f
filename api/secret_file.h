/* secret_file: reading the token and TLS files with the checks ssh makes of a private key.
 *
 * Every file: opened O_NONBLOCK (a FIFO given by mistake never blocks start-up) and read only
 * when it is a regular file, owned by goblind's own user or root, not writable by every user,
 * not empty and not larger than the bound. Secrets (the bearer token, the TLS private key) are
 * also opened O_NOFOLLOW (the file itself, not a link another user may re-point), and the key
 * must not be readable by its group or every user; the token must not be readable by every
 * user (its group: a warning). The certificate and CA files are public and may be links. */
#ifndef GOBLIN_SECRET_FILE_H
#define GOBLIN_SECRET_FILE_H

#include <stddef.h>

typedef enum {
    SECRET_TOKEN,           /* auth_token_file */
    SECRET_PRIVATE_KEY,     /* tls_key_file */
    SECRET_PUBLIC,          /* tls_cert_file, tls_client_ca_file */
} secret_kind;

/* Reads path (setting: the configuration key, for messages) after the checks above: a
 * NUL-terminated malloc'd copy of at most max bytes. NULL with the reason, naming the setting
 * and the file, in err. warn (may be NULL) gets a warning for an accepted file, or "". */
char *secret_file_read(const char *setting, const char *path, secret_kind kind, size_t max, char *err, size_t errlen,
                       char *warn, size_t warnlen);

#endif
