/* make bench-network's reference: the least a client can do per call, one libcurl easy handle whose
 * connection stays open between calls (TLS done once), HTTP/1.1, TCP_NODELAY (libcurl's default).
 *
 *   warm_client BASE_URL CA_FILE
 *   stdin: one call a line, "POST PATH JSON" or "GET PATH"; stdout: "STATUS MICROSECONDS" a line, after each call.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *unused) {
    (void)data; (void)unused;
    return size * count;
}

static long long now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: warm_client BASE_URL CA_FILE\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *curl = curl_easy_init();
    struct curl_slist *headers = NULL;
    headers = curl_slist_append(headers, "Accept: application/json");
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "X-SealTrust-Client: warm-client/1");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_CAINFO, argv[2]);
    curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    char line[8192], url[9000];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char *method = strtok(line, " ");
        char *path = strtok(NULL, " ");
        char *body = strtok(NULL, "");
        if (!method || !path) continue;
        snprintf(url, sizeof url, "%s%s", argv[1], path);
        curl_easy_setopt(curl, CURLOPT_URL, url);
        if (strcmp(method, "POST") == 0) {
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body ? body : "");
        } else {
            curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
        }
        long long started = now_us();
        CURLcode code = curl_easy_perform(curl);
        long long elapsed = now_us() - started;
        long status = 0;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        if (code != CURLE_OK) status = -(long)code;
        printf("%ld %lld\n", status, elapsed);
        fflush(stdout);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    curl_global_cleanup();
    return 0;
}
