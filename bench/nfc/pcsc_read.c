/*
 * The reference for `make bench-nfc`: the least a C program needs to read a
 * Type 4 Tag's URI through libpcsclite, sending the same commands as the
 * NFCReader module (SELECT application, SELECT+READ capability container,
 * SELECT NDEF file, READ BINARY of MLe bytes, then chunks of MLe).
 *
 *   pcsc_read READER TAPS
 *
 * For each of TAPS presentations on READER it prints one line, flushed:
 *   READ <microseconds from the card-present event to the URI> <URI>
 *   FAIL <microseconds> <what went wrong>
 */
#include <PCSC/winscard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const uri_prefixes[] = {
    "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
    "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://",
    "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:",
    "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:",
    "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Sends one APDU; returns the data length, or -1 (with `why` set) on a PC/SC error or a status word other than 9000. */
static long exchange(SCARDHANDLE card, const SCARD_IO_REQUEST *pci, const BYTE *apdu, DWORD length,
                     BYTE *data, const char **why)
{
    BYTE response[MAX_BUFFER_SIZE];
    DWORD received = sizeof response;
    LONG rv = SCardTransmit(card, pci, apdu, length, NULL, response, &received);
    if (rv != SCARD_S_SUCCESS) {
        *why = pcsc_stringify_error(rv);
        return -1;
    }
    if (received < 2 || response[received - 2] != 0x90 || response[received - 1] != 0x00) {
        *why = "status word";
        return -1;
    }
    memcpy(data, response, received - 2);
    return (long)received - 2;
}

static long read_binary(SCARDHANDLE card, const SCARD_IO_REQUEST *pci, long offset, long length, BYTE *data,
                        const char **why)
{
    BYTE apdu[] = {0x00, 0xB0, (BYTE)(offset >> 8), (BYTE)offset, (BYTE)length};
    return exchange(card, pci, apdu, sizeof apdu, data, why);
}

/* The Type 4 Tag procedure and the first record's URI (the virtual tag writes a single URI record). */
static int read_uri(SCARDCONTEXT context, const char *reader, char *uri, double *uri_at, const char **why)
{
    static const BYTE select_application[] = {0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00};
    static const BYTE select_container[] = {0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03};
    SCARDHANDLE card;
    DWORD protocol;
    BYTE data[MAX_BUFFER_SIZE], file[65536];
    int ok = 0;

    LONG rv = SCardConnect(context, reader, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1, &card, &protocol);
    if (rv != SCARD_S_SUCCESS) {
        *why = pcsc_stringify_error(rv);
        return 0;
    }
    const SCARD_IO_REQUEST *pci = protocol == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : SCARD_PCI_T1;
    rv = SCardBeginTransaction(card);
    if (rv != SCARD_S_SUCCESS) {
        *why = pcsc_stringify_error(rv);
        SCardDisconnect(card, SCARD_LEAVE_CARD);
        return 0;
    }
    if (exchange(card, pci, select_application, sizeof select_application, data, why) < 0
        || exchange(card, pci, select_container, sizeof select_container, data, why) < 0
        || read_binary(card, pci, 0, 15, data, why) < 15)
        goto done;
    long mle = data[3] << 8 | data[4];
    long size = data[11] << 8 | data[12];
    BYTE select_ndef[] = {0x00, 0xA4, 0x00, 0x0C, 0x02, data[9], data[10]};
    if (mle > 256)
        mle = 256;
    if (exchange(card, pci, select_ndef, sizeof select_ndef, data, why) < 0)
        goto done;
    long have = read_binary(card, pci, 0, mle < size ? mle : size, file, why);
    if (have < 2)
        goto done;
    long end = 2 + (file[0] << 8 | file[1]);
    if (end > size) {
        *why = "length beyond file";
        goto done;
    }
    while (have < end) {
        long part = read_binary(card, pci, have, end - have < mle ? end - have : mle, file + have, why);
        if (part <= 0)
            goto done;
        have += part;
    }
    const BYTE *record = file + 2;
    int short_record = record[0] & 0x10;
    long type_length = record[1];
    long payload_length = short_record ? record[2] : (long)record[2] << 24 | record[3] << 16 | record[4] << 8 | record[5];
    const BYTE *type = record + (short_record ? 3 : 6) + ((record[0] & 0x08) ? 1 : 0);
    const BYTE *payload = type + type_length + ((record[0] & 0x08) ? type[-1] : 0);
    if ((record[0] & 0x07) != 1 || type_length != 1 || type[0] != 'U' || payload_length < 1 || payload[0] > 0x23) {
        *why = "no URI record";
        goto done;
    }
    size_t prefix = strlen(uri_prefixes[payload[0]]);
    memcpy(uri, uri_prefixes[payload[0]], prefix);
    memcpy(uri + prefix, payload + 1, payload_length - 1);
    uri[prefix + payload_length - 1] = '\0';
    *uri_at = now_us(); /* the URI in hand, before the connection closes, as in NFCReader */
    ok = 1;
done:
    SCardEndTransaction(card, SCARD_LEAVE_CARD);
    SCardDisconnect(card, SCARD_LEAVE_CARD);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s READER TAPS\n", argv[0]);
        return 2;
    }
    const char *reader = argv[1];
    long taps = strtol(argv[2], NULL, 10);
    SCARDCONTEXT context;
    LONG rv = SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, &context);
    if (rv != SCARD_S_SUCCESS) {
        fprintf(stderr, "pcsc_read: %s\n", pcsc_stringify_error(rv));
        return 1;
    }
    SCARD_READERSTATE state = {.szReader = reader, .dwCurrentState = SCARD_STATE_UNAWARE};
    rv = SCardGetStatusChange(context, 0, &state, 1);
    if (rv != SCARD_S_SUCCESS) {
        fprintf(stderr, "pcsc_read: %s: %s\n", reader, pcsc_stringify_error(rv));
        return 1;
    }
    state.dwCurrentState = state.dwEventState & ~SCARD_STATE_CHANGED;
    int was_present = (state.dwEventState & SCARD_STATE_PRESENT) != 0; /* a tag already there is no presentation */
    printf("READY\n");
    fflush(stdout);
    while (taps > 0) {
        rv = SCardGetStatusChange(context, INFINITE, &state, 1);
        double presented = now_us();
        if (rv != SCARD_S_SUCCESS) {
            fprintf(stderr, "pcsc_read: %s\n", pcsc_stringify_error(rv));
            return 1;
        }
        state.dwCurrentState = state.dwEventState & ~SCARD_STATE_CHANGED;
        int present = (state.dwEventState & SCARD_STATE_PRESENT) != 0;
        if (present && !was_present) {
            static char uri[65536];
            const char *why = "";
            double uri_at = 0;
            int ok = read_uri(context, reader, uri, &uri_at, &why);
            double elapsed = (ok ? uri_at : now_us()) - presented;
            printf("%s %.0f %s\n", ok ? "READ" : "FAIL", elapsed, ok ? uri : why);
            fflush(stdout);
            taps--;
        }
        was_present = present;
    }
    SCardReleaseContext(context);
    return 0;
}
