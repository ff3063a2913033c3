#include "ui/PasswordVault.h"

#include <qt6keychain/keychain.h>

namespace keel {
namespace {

bool backendMissing(QKeychain::Error error)
{
    return error == QKeychain::NoBackendAvailable || error == QKeychain::NotImplemented ||
           error == QKeychain::AccessDenied || error == QKeychain::OtherError;
}

// Jobs have no parent: one started just before its dialog closes still
// finishes (it deletes itself); only the callbacks die with the vault.
template <typename Job>
Job *prepare(const QString &profile)
{
    auto *job = new Job(PasswordVault::serviceName());
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(profile);
    return job;
}

} // namespace

PasswordVault::PasswordVault(QObject *parent) : QObject(parent) {}

void PasswordVault::noteAvailability(bool available)
{
    if (m_available == available)
        return;
    m_available = available;
    Q_EMIT availabilityChanged(available);
}

void PasswordVault::read(
    const QString &profile,
    std::function<void(Lookup lookup, const QString &password, const QString &problem)> done)
{
    auto *job = prepare<QKeychain::ReadPasswordJob>(profile);
    connect(job, &QKeychain::Job::finished, this, [this, job, done](QKeychain::Job *) {
        if (job->error() == QKeychain::NoError) {
            noteAvailability(true);
            done(Lookup::Found, job->textData(), {});
        } else if (job->error() == QKeychain::EntryNotFound) {
            noteAvailability(true);
            done(Lookup::NotFound, {}, {});
        } else {
            noteAvailability(!backendMissing(job->error()));
            done(Lookup::Unavailable, {}, job->errorString());
        }
    });
    job->start();
}

void PasswordVault::write(const QString &profile, const QString &password,
                          std::function<void(Status)> done)
{
    auto *job = prepare<QKeychain::WritePasswordJob>(profile);
    job->setTextData(password);
    connect(job, &QKeychain::Job::finished, this, [this, job, done](QKeychain::Job *) {
        if (job->error() == QKeychain::NoError) {
            noteAvailability(true);
            done({});
            return;
        }
        noteAvailability(!backendMissing(job->error()));
        done(makeError(ErrorKind::Environment,
                       tr("the keychain did not store the password: %1").arg(job->errorString())));
    });
    job->start();
}

void PasswordVault::remove(const QString &profile, std::function<void(Status)> done)
{
    auto *job = prepare<QKeychain::DeletePasswordJob>(profile);
    connect(job, &QKeychain::Job::finished, this, [job, done](QKeychain::Job *) {
        if (!done)
            return;
        if (job->error() == QKeychain::NoError || job->error() == QKeychain::EntryNotFound)
            done({});
        else
            done(makeError(ErrorKind::Environment, job->errorString()));
    });
    job->start();
}

} // namespace keel
